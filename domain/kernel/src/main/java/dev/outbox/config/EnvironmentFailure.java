package dev.outbox.config;

/**
 * Marks an exception as a failure of something a process depends on (its configuration, the
 * database), not of its own code. Thrown while a process starts, it means the process cannot
 * start: {@link ProcessMain} logs its message on one line and exits 2. Kept as an interface so the
 * database's exception family can carry it without this kernel knowing the database.
 */
public interface EnvironmentFailure {}
