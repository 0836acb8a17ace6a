package dev.outbox;

/**
 * {@link Outbox#record} was called with no transaction active, or {@link ConnectionOutbox#record}
 * was given a connection in auto-commit mode. The message row would have committed on its own,
 * apart from the business rows it announces, so nothing was written: call it inside the
 * transaction that writes your own rows.
 */
public final class OutsideTransactionException extends OutboxException {
    private static final long serialVersionUID = 1L;

    public OutsideTransactionException(MessageType type) {
        super("Outbox.record(" + type + ") was called outside a transaction: call it inside the"
                + " @Transactional method that writes your own rows, so they commit together");
    }

    private OutsideTransactionException(String message) {
        super(message);
    }

    /** {@link ConnectionOutbox#record} on a connection in auto-commit mode. */
    public static OutsideTransactionException autoCommit(MessageType type) {
        return new OutsideTransactionException("ConnectionOutbox.record(" + type + ") was given a connection in"
                + " auto-commit mode, where the row would commit on its own: setAutoCommit(false) first, and commit"
                + " it with your own rows");
    }
}
