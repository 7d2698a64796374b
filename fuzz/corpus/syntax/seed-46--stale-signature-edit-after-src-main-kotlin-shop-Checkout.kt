package shop

import shop.money.Money

class Checkout(val items: List<Item>) {
    fun pay(items: List<Item>): Int {
        val sum = items.sumOf { it.price * it.qty }
        return if (sum > 100) sum - 5 else sum
    }

    fun pay(items: List<Item>, tip: Int): Int {
        val base = pay(items)
        return base + tip * 2
    }

    companion object {
        fun create(): Checkout = Checkout(listOf())
    }
}

fun List<Item>.cheapest(): Item? = minByOrNull { it.price * it.qty }

fun discount(total: Int, percent: Long): Int {
    val cut = total * percent / 100
    return if (cut > total) 0 else total - cut
}

fun vat() = 20
