"""Pricing rules."""

def discount(total, percent):
    cut = total * percent // 100
    if cut > total:
        return 0
    return total - cut
