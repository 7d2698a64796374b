extension Track {
    func isLonger(than other: Track) -> Bool {
        return duration > other.duration
    }
}
