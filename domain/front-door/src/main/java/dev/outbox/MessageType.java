package dev.outbox;

import java.util.Objects;

/**
 * A message type and the contract version an event is written at. The contract itself (the JSON
 * Schema, where the message is published, whether it is ordered) is the resource
 * {@code contracts/<name>/v<version>.schema.json} of the module that owns the event.
 */
public record MessageType(String name, int version) {
    public MessageType {
        Objects.requireNonNull(name, "name");
        if (version < 1) {
            throw new IllegalArgumentException("a contract version starts at 1: " + version);
        }
    }

    @Override
    public String toString() {
        return name + " v" + version;
    }
}
