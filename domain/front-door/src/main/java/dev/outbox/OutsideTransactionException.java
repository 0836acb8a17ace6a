package dev.outbox;

/**
 * {@link Outbox#record} was called with no transaction active. The message row would have
 * committed on its own, apart from the business rows it announces, so nothing was written: call
 * it inside the {@code @Transactional} method that writes your own rows.
 */
public final class OutsideTransactionException extends OutboxException {
    private static final long serialVersionUID = 1L;

    public OutsideTransactionException(MessageType type) {
        super("Outbox.record(" + type + ") was called outside a transaction: call it inside the"
                + " @Transactional method that writes your own rows, so they commit together");
    }
}
