package dev.outbox;

import java.util.Objects;

/**
 * What a message is about. Messages of one aggregate are published in {@code version} order
 * (gapless from 1) unless their type is unordered; a message without a version is never held
 * back by others.
 */
public record Aggregate(String type, String id, Long version) {
    public Aggregate {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(id, "id");
        if (type.isBlank() || id.isBlank()) {
            throw new IllegalArgumentException("an aggregate needs a type and an id");
        }
        if (version != null && version < 1) {
            throw new IllegalArgumentException("aggregate versions start at 1: " + version);
        }
    }

    public static Aggregate of(String type, String id, long version) {
        return new Aggregate(type, id, version);
    }

    /** An aggregate whose messages carry no version, so none waits for another. */
    public static Aggregate unversioned(String type, String id) {
        return new Aggregate(type, id, null);
    }
}
