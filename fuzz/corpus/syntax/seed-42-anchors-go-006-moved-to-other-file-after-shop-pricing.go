package shop

func Discount(total, percent int) int {
	cut := total * percent / 100
	if cut > total {
		return 0
	}
	return total - cut
}
