func gain(_ db: Double) -> Double {
    return pow(10, db / 20)
}

func unity() -> Double { 1 }
