package dev.outbox.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a rolling update must leave true, each check counting its violations with a few examples:
 * the start costs what the settings allow and no more, the stop drains within the grace period and
 * accounts for every row, and the backlog is published and delivered, each message at least once,
 * twice only where a relay could not know.
 */
final class RolloutChecks {
    private static final int EXAMPLES = 5;

    private RolloutChecks() {}

    static List<Invariants.Check> check(RolloutRun run) {
        List<Invariants.Check> checks = List.of(
                midDrain(run),
                started(run),
                databasePerRelay(run),
                databaseTogether(run),
                broker(run),
                noRefusal(run),
                noStorm(run),
                terminatedDrained(run),
                restStopped(run),
                allPublished(run),
                noneLost(run),
                duplicatesExplained(run),
                claimSpread(run));
        List<Invariants.Check> numbered = new ArrayList<>();
        for (Invariants.Check c : checks) {
            numbered.add(new Invariants.Check(numbered.size() + 1, c.invariant(), c.violations(), c.details()));
        }
        return numbered;
    }

    private static Invariants.Check midDrain(RolloutRun run) {
        List<String> details = new ArrayList<>();
        if (!(run.deliveredAtSigterm() > 0 && run.deliveredAtSigterm() < 1)) {
            details.add(String.format(
                    Locale.ROOT,
                    "%.1f%% of the backlog delivered at the SIGTERMs: not mid-drain",
                    run.deliveredAtSigterm() * 100));
        }
        for (RolloutRelay r : run.inRole(RolloutRelay.Role.TERMINATED)) {
            if (r.stop == null || r.stop.claimed() == 0) {
                details.add(r.id + " had claimed no row when it was stopped");
            }
        }
        return check("the SIGTERMs went out mid-drain, to relays holding rows", details);
    }

    private static Invariants.Check started(RolloutRun run) {
        return check("every relay started (logged that it runs)", run.startFailures());
    }

    private static Invariants.Check databasePerRelay(RolloutRun run) {
        int bound = run.options().databaseBound();
        List<String> details = new ArrayList<>();
        for (RolloutRelay r : run.relays()) {
            if (r.peakDatabase > bound) {
                details.add(r.id + " held " + r.peakDatabase + " PostgreSQL connections at once " + r.peakDatabaseByName
                        + ", bound " + bound);
            }
        }
        return check("no relay held more PostgreSQL connections than its settings allow (" + bound + ")", details);
    }

    private static Invariants.Check databaseTogether(RolloutRun run) {
        List<String> details = new ArrayList<>();
        for (ConnectionWatch.Excess e : run.excesses()) {
            details.add(String.format(
                    Locale.ROOT,
                    "at %.1f s the relays held %d backends, the live ones may hold %d",
                    e.at(),
                    e.relayBackends(),
                    e.bound()));
        }
        if (run.samples().isEmpty()) {
            details.add("no sample of pg_stat_activity was taken: " + run.watchFailures());
        }
        return check(
                "the relays together never held more backends than the live ones may ("
                        + run.options().relays() + " × " + run.options().databaseBound() + " while they started)",
                details);
    }

    private static Invariants.Check broker(RolloutRun run) {
        List<String> details = new ArrayList<>();
        int channels = run.options().channelBound();
        for (RolloutRelay r : run.relays()) {
            if (r.peakBroker > 1) {
                details.add(r.id + " held " + r.peakBroker + " broker connections at once");
            }
            if (r.brokerConnectsLogged > 1) {
                details.add(r.id + " connected to the broker " + r.brokerConnectsLogged + " times");
            }
            if (run.brokerSampled() && r.peakBrokerCounted > 1) {
                details.add(r.id + " had " + r.peakBrokerCounted + " connections in the vhost, as the broker counts");
            }
            if (run.brokerSampled() && r.peakChannels > channels) {
                details.add(r.id + " had " + r.peakChannels + " channels open, bound " + channels);
            }
        }
        return check(
                "each relay held one broker connection, opened once, with at most " + channels + " channels", details);
    }

    private static Invariants.Check noRefusal(RolloutRun run) {
        List<String> details = new ArrayList<>();
        for (RolloutRelay r : run.relays()) {
            r.refused.stream().limit(2).forEach(line -> details.add(r.id + ": " + line));
        }
        return new Invariants.Check(
                0,
                "no connection refused (too many clients, a connection limit, access refused) and no ERROR line in"
                        + " any relay's log",
                run.relays().stream().mapToLong(r -> r.refused.size()).sum(),
                details.stream().limit(EXAMPLES * 2L).toList());
    }

    /**
     * A storm is the herd keeping its own members out: sessions opened past what the processes'
     * bounds explain, or a relay whose connection failed again after it retried. One attempt that
     * timed out on a machine the starting JVMs starve is a slow start, listed but not counted.
     */
    private static Invariants.Check noStorm(RolloutRun run) {
        List<String> details = new ArrayList<>();
        long violations = 0;
        if (run.sessionsOpened() > run.sessionAllowance()) {
            violations++;
            details.add(run.sessionsOpened() + " sessions opened in the run's database, more than the "
                    + run.sessionAllowance() + " the processes' bounds allow without a retry");
        }
        for (RolloutRelay r : run.relays()) {
            if (r.retried.size() > 1) {
                violations++;
                details.add(r.id + " failed to connect " + r.retried.size() + " times, last: "
                        + r.retried.get(r.retried.size() - 1));
            } else if (r.retried.size() == 1) {
                details.add(r.id + " retried once (not counted): " + r.retried.get(0));
            }
        }
        return new Invariants.Check(
                0,
                "no connection storm: at most " + run.sessionAllowance() + " sessions opened (the bounds), no relay"
                        + " failing to connect after a retry",
                violations,
                details.stream().limit(EXAMPLES * 2L).toList());
    }

    private static Invariants.Check terminatedDrained(RolloutRun run) {
        List<String> details = new ArrayList<>();
        double grace = run.options().grace().toMillis() / 1000.0;
        for (RolloutRelay r : run.inRole(RolloutRelay.Role.TERMINATED)) {
            if (r.killedAtGrace) {
                details.add(r.id + " was still running " + grace + " s after its SIGTERM: SIGKILLed");
            } else if (r.drainSeconds() > grace) {
                details.add(String.format(
                        Locale.ROOT, "%s took %.2f s, over the grace of %.0f s", r.id, r.drainSeconds(), grace));
            }
            stoppedWell(r, details);
        }
        return check(
                "each SIGTERMed relay exited 0 within the grace period ("
                        + run.options().grace().toSeconds()
                        + " s), stopped cleanly, claimed = published + released + failed",
                details);
    }

    private static Invariants.Check restStopped(RolloutRun run) {
        List<String> details = new ArrayList<>();
        for (RolloutRelay r : run.relays()) {
            if (r.role != RolloutRelay.Role.TERMINATED) {
                if (r.killedAtGrace) {
                    details.add(r.id + " did not exit after its SIGTERM at the end: SIGKILLed");
                }
                stoppedWell(r, details);
            }
        }
        return check("every other relay, stopped at the end, did the same", details);
    }

    private static void stoppedWell(RolloutRelay r, List<String> details) {
        if (r.exitCode != 0) {
            details.add(r.id + " exited " + (r.exitCode == Integer.MIN_VALUE ? "never" : r.exitCode));
        }
        if (!r.stoppedCleanly) {
            details.add(r.id + " did not log \"relay stopped cleanly\"");
        }
        if (r.stop == null) {
            details.add(r.id + " logged no stop line (claimed= published= released=)");
        } else if (!r.accounted()) {
            details.add(r.id + " claimed " + r.stop.claimed() + " but published " + r.stop.published() + ", released "
                    + r.stop.released() + ", failed " + r.stop.failed());
        }
    }

    private static Invariants.Check allPublished(RolloutRun run) {
        List<String> details = new ArrayList<>();
        long other = 0;
        for (Map.Entry<String, Long> e : run.statuses().entrySet()) {
            if (!e.getKey().equals("PUBLISHED")) {
                other += e.getValue();
                details.add(e.getValue() + " rows " + e.getKey());
            }
        }
        long published = run.statuses().getOrDefault("PUBLISHED", 0L);
        if (published + other != run.options().rows()) {
            details.add(
                    published + other + " rows in the outbox, " + run.options().rows() + " written");
            other += Math.abs(run.options().rows() - published - other);
        }
        if (run.drainedAt() < 0) {
            details.add("the backlog was not drained within the bound");
        }
        return new Invariants.Check(
                0, "every row PUBLISHED (none PENDING, IN_PROGRESS, RETRYABLE_FAILED or PARKED)", other, details);
    }

    private static Invariants.Check noneLost(RolloutRun run) {
        List<String> details = new ArrayList<>();
        if (run.counterStopped() != null) {
            details.add(
                    "the counting consumer stopped early, so later copies were not counted: " + run.counterStopped());
        }
        run.missing().stream()
                .limit(EXAMPLES)
                .forEach(id -> details.add("row " + id + " never reached the counting queue"));
        return new Invariants.Check(
                0,
                "none lost: every row's id delivered to the counting queue",
                run.missing().size(),
                details);
    }

    private static Invariants.Check duplicatesExplained(RolloutRun run) {
        long unexplained = Math.max(0, run.extraCopies() - run.unknownOutcomes());
        List<String> details = new ArrayList<>();
        if (unexplained > 0) {
            details.add(run.extraCopies() + " extra copies of " + run.duplicatedIds() + " ids, but the relays left"
                    + " only " + run.unknownOutcomes() + " outcomes unknown (unconfirmed at shutdown, lost leases,"
                    + " rows given back by peers): a row recorded PUBLISHED went out again");
        }
        return new Invariants.Check(
                0, "a message went out twice only where a relay did not know its outcome", unexplained, details);
    }

    private static Invariants.Check claimSpread(RolloutRun run) {
        List<String> details = new ArrayList<>();
        for (RolloutRelay r : run.firstWave()) {
            if (r.stop != null && r.stop.published() == 0) {
                details.add(r.id + " published nothing");
            }
        }
        return check("the claim spread: every relay started at once published rows", details);
    }

    /** A check whose violations are its details; numbered in {@link #check(RolloutRun)}. */
    private static Invariants.Check check(String invariant, List<String> details) {
        return new Invariants.Check(
                0,
                invariant,
                details.size(),
                details.stream().limit(EXAMPLES * 2L).toList());
    }
}
