func decibels(fromAmplitude amplitude: Double) -> Double {
    return 20 * log10(max(amplitude, 1e-9))
}

func fadeCurve(steps: Int, exponent: Double) -> [Double] {
    guard steps > 1 else { return [1] }
    return (0..<steps).map { pow(Double($0) / Double(steps - 1), exponent) }
}
