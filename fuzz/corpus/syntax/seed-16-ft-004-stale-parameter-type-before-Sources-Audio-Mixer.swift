import Foundation

public struct Mixer {
    public let rate: Double
    public var channels: Int
    private var levels: [Double]

    public init(rate: Double) {
        self.rate = rate
        self.channels = 2
        self.levels = Array(repeating: 1.0, count: 2)
    }

    public init(rate: Double, channels: Int) {
        self.rate = rate
        self.channels = channels
        self.levels = Array(repeating: 1.0, count: channels)
    }

    public func blend(first: Double, second: Double) -> Double {
        let mixed = (first + second) / 2
        return min(max(mixed, -1), 1)
    }

    public func gain(_ db: Double) -> Double {
        return pow(10, db / 20)
    }

    public func silence() -> [Double] {
        return Array(repeating: 0, count: channels)
    }

    public subscript(channel: Int) -> Double {
        get { levels[channel] }
        set { levels[channel] = newValue }
    }

    public subscript(named name: String) -> Double {
        return name == "left" ? levels[0] : levels[channels - 1]
    }
}

public enum Mode: Int {
    case slow = 1
    case fast = 2
}
