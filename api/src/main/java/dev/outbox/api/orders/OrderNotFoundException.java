package dev.outbox.api.orders;

import java.util.UUID;

/** No order with this id (HTTP 404). */
public final class OrderNotFoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OrderNotFoundException(UUID id) {
        super("order " + id + " does not exist", null, false, false);
    }
}
