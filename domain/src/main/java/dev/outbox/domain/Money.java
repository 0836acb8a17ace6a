package dev.outbox.domain;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Currency;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An amount in one ISO 4217 currency, held at exactly the currency's minor-unit scale
 * (2 for EUR, 0 for JPY, 3 for BHD). Parsing refuses more precision than the currency has,
 * rather than rounding money silently. On the wire money is a decimal string.
 */
public final class Money implements Comparable<Money> {
    /** Plain decimal notation only: no exponent, no sign other than a leading minus, no spaces. */
    private static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9][0-9]{0,14})(\\.[0-9]{1,4})?");
    /** NUMERIC(19,4) in the database: 15 integer digits. */
    private static final BigDecimal MAX = new BigDecimal("999999999999999");

    private final BigDecimal amount;
    private final Currency currency;

    private Money(BigDecimal amount, Currency currency) {
        this.amount = amount;
        this.currency = currency;
    }

    public static Money of(BigDecimal amount, Currency currency) {
        Objects.requireNonNull(amount, "amount");
        Objects.requireNonNull(currency, "currency");
        int digits = currency.getDefaultFractionDigits();
        if (digits < 0) {
            throw new IllegalArgumentException("currency " + currency + " has no minor unit and cannot hold money");
        }
        if (amount.stripTrailingZeros().scale() > digits) {
            throw new IllegalArgumentException(
                    amount.toPlainString() + " has more decimal places than " + currency + " allows (" + digits + ")");
        }
        if (amount.abs().compareTo(MAX) > 0) {
            throw new IllegalArgumentException("amount " + amount.toPlainString() + " is out of range");
        }
        return new Money(amount.setScale(digits, RoundingMode.UNNECESSARY), currency);
    }

    /**
     * Parses a decimal string such as {@code "42.50"} in the given currency.
     *
     * @throws IllegalArgumentException with a message fit for a client when the text is not money
     */
    public static Money parse(String decimal, Currency currency) {
        if (decimal == null || !DECIMAL.matcher(decimal).matches()) {
            throw new IllegalArgumentException("must be a decimal string such as \"42.50\"");
        }
        return of(new BigDecimal(decimal), currency);
    }

    public static Money zero(Currency currency) {
        return of(BigDecimal.ZERO, currency);
    }

    /**
     * Resolves an ISO 4217 code, refusing codes with no minor unit (XXX, XAU...).
     *
     * @throws IllegalArgumentException with a message fit for a client
     */
    public static Currency currency(String code) {
        if (code == null || !code.matches("[A-Z]{3}")) {
            throw new IllegalArgumentException("must be an ISO 4217 code of three capital letters");
        }
        Currency currency;
        try {
            currency = Currency.getInstance(code);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown ISO 4217 currency " + code);
        }
        if (currency.getDefaultFractionDigits() < 0) {
            throw new IllegalArgumentException("currency " + code + " cannot be used for payments");
        }
        return currency;
    }

    public BigDecimal amount() {
        return amount;
    }

    public Currency currency() {
        return currency;
    }

    public Money plus(Money other) {
        requireSameCurrency(other);
        return of(amount.add(other.amount), currency);
    }

    public Money times(int factor) {
        return of(amount.multiply(BigDecimal.valueOf(factor)), currency);
    }

    public boolean isPositive() {
        return amount.signum() > 0;
    }

    public boolean isNegative() {
        return amount.signum() < 0;
    }

    /** The wire form: plain decimal at the currency's scale, e.g. {@code "42.50"}. */
    public String toDecimalString() {
        return amount.toPlainString();
    }

    private void requireSameCurrency(Money other) {
        if (!currency.equals(other.currency)) {
            throw new IllegalArgumentException("cannot combine " + currency + " with " + other.currency);
        }
    }

    @Override
    public int compareTo(Money other) {
        requireSameCurrency(other);
        return amount.compareTo(other.amount);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Money m && amount.equals(m.amount) && currency.equals(m.currency);
    }

    @Override
    public int hashCode() {
        return Objects.hash(amount, currency);
    }

    @Override
    public String toString() {
        return amount.toPlainString() + " " + currency.getCurrencyCode();
    }
}
