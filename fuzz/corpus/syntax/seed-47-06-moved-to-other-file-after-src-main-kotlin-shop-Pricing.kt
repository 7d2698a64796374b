package shop

fun discount(total: Int, percent: Int): Int {
    val cut = total * percent / 100
    return if (cut > total) 0 else total - cut
}
