from .money import Money

CURRENCY = "EUR"


# Carts.
class Cart:  # the cart
    """A shopping cart."""

    def __init__(self, lines):
        self.lines = lines

    def total(self, rate=0):
        subtotal = sum(line.price * line.qty for line in self.lines)
        # tax
        if rate:  # percent
            subtotal += subtotal * rate // 100
        return subtotal

    @property
    def size(self):
        return len(self.lines)


# Discount, never below zero.
def discount(total, percent):
    # the cut
    cut = total * percent // 100
    if cut > total:
        return 0
    return total - cut


def vat():
    return 20
