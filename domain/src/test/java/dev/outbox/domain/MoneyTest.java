package dev.outbox.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Currency;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MoneyTest {
    private static final Currency EUR = Currency.getInstance("EUR");
    private static final Currency JPY = Currency.getInstance("JPY");
    private static final Currency BHD = Currency.getInstance("BHD");

    @Test
    void normalisesToTheCurrencyScale() {
        assertEquals("42.50", Money.parse("42.5", EUR).toDecimalString());
        assertEquals("42.50", Money.parse("42.50", EUR).toDecimalString());
        assertEquals("100", Money.parse("100", JPY).toDecimalString());
        assertEquals("1.250", Money.parse("1.25", BHD).toDecimalString());
    }

    @Test
    void equalAmountsWrittenDifferentlyAreEqual() {
        assertEquals(Money.parse("42.5", EUR), Money.parse("42.50", EUR));
        assertEquals(
                Money.parse("42.5", EUR).hashCode(), Money.parse("42.50", EUR).hashCode());
        assertNotEquals(Money.parse("42.50", EUR), Money.parse("42.51", EUR));
    }

    @Test
    void refusesMorePrecisionThanTheCurrencyHasInsteadOfRounding() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Money.parse("42.505", EUR));
        assertTrue(e.getMessage().contains("more decimal places"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Money.parse("1.5", JPY));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " 1.00", "1.00 ", "1e3", "+1", "01.00", "1.", ".5", "NaN", "1,00", "12.34567"})
    void refusesTextThatIsNotAPlainDecimal(String text) {
        assertThrows(IllegalArgumentException.class, () -> Money.parse(text, EUR));
    }

    @Test
    void refusesAmountsBeyondTheColumnRange() {
        assertThrows(IllegalArgumentException.class, () -> Money.of(new BigDecimal("1000000000000000"), EUR));
    }

    @Test
    void addsAndMultipliesInOneCurrencyOnly() {
        Money a = Money.parse("10.10", EUR);
        assertEquals(Money.parse("30.30", EUR), a.times(3));
        assertEquals(Money.parse("20.20", EUR), a.plus(a));
        assertThrows(IllegalArgumentException.class, () -> a.plus(Money.parse("1", JPY)));
        assertThrows(IllegalArgumentException.class, () -> a.compareTo(Money.parse("1", JPY)));
    }

    @Test
    void resolvesCurrencyCodesStrictly() {
        assertEquals(EUR, Money.currency("EUR"));
        assertThrows(IllegalArgumentException.class, () -> Money.currency("eur"));
        assertThrows(IllegalArgumentException.class, () -> Money.currency("ABC"));
        assertThrows(IllegalArgumentException.class, () -> Money.currency("XXX"));
        assertThrows(IllegalArgumentException.class, () -> Money.currency(null));
    }
}
