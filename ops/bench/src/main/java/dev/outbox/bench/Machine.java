package dev.outbox.bench;

import java.lang.management.ManagementFactory;

/** One paragraph on where the numbers come from: cores, memory, JVM, database, broker. */
final class Machine {
    private Machine() {}

    static String describe(BenchEnv env, BenchMain.Options o) {
        long memMiB = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getTotalMemorySize()
                / (1024 * 1024);
        String pg = String.valueOf(env.db.scalar("SHOW server_version"));
        String syncCommit = String.valueOf(env.db.scalar("SHOW synchronous_commit"));
        Object broker = env.broker.connection().getServerProperties().get("product") + " "
                + env.broker.connection().getServerProperties().get("version");
        return String.format(
                "Machine: %d cores, %,d MiB RAM, Java %s. PostgreSQL %s (synchronous_commit=%s, %s),"
                        + " broker %s (%s). Everything (database, broker, relays, load generators) shares this"
                        + " machine. Run: %s, %,d rows per throughput scenario.",
                Runtime.getRuntime().availableProcessors(),
                memMiB,
                System.getProperty("java.version"),
                pg,
                syncCommit,
                env.db.source(),
                broker,
                env.broker.source(),
                o.quick() ? "--quick (CI smoke: too small to compare)" : "full",
                o.rows());
    }
}
