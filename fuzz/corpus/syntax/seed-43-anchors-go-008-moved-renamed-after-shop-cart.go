package shop

import "fmt"

type Cart struct {
	Lines []Line
	Owner string
}

func (c *Cart) Total(rate int) int {
	sum := 0
	for _, l := range c.Lines {
		sum += l.Price * l.Qty
	}
	return sum + sum*rate/100
}

func (c Cart) String() string {
	return fmt.Sprintf("%d lines of %s", len(c.Lines), c.Owner)
}


func Vat() int { return 20 }
