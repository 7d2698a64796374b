import Foundation

func powerCurve(steps: Int, exponent: Double) -> [Double] {
    guard steps > 1 else { return [1] }
    return (0..<steps).map { pow(Double($0) / Double(steps - 1), exponent) }
}
