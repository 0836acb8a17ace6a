package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.outbox.config.Settings;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.testkit.TestDatabase;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The order service registers its message contracts at start, where a relay that has none of its
 * files reads them; a second start (another instance, a restart) registers nothing new.
 */
class ContractRegistrationIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final String REGISTERED = "SELECT message_type || ' v' || message_version || ' -> ' || exchange_name"
            + " || ' ' || routing_key || ' by ' || registered_by || ' at ' || registered_at"
            + " FROM outbox_message_contracts ORDER BY message_type, message_version";

    @Test
    void atStartTheApiRegistersEveryContractItKnowsAndAgainNothingChanges() throws Exception {
        DB.reset();
        Map<String, String> env = new HashMap<>(DB.env());
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");

        try (ApiApp app = ApiApp.start(new Settings(env))) {
            List<String> expected = MessageContracts.onClasspath().all().stream()
                    .map(c -> c.messageType() + " v" + c.version() + " -> " + c.exchange() + " " + c.routingKey()
                            + " by outbox-api")
                    .sorted()
                    .toList();
            assertFalse(expected.isEmpty());
            List<String> registered = DB.rows(REGISTERED).stream()
                    .map(r -> r.values().iterator().next().toString())
                    .toList();
            assertEquals(
                    expected,
                    registered.stream()
                            .map(r -> r.substring(0, r.indexOf(" at ")))
                            .toList());

            try (ApiApp second = ApiApp.start(new Settings(env))) {
                assertEquals(
                        registered,
                        DB.rows(REGISTERED).stream()
                                .map(r -> r.values().iterator().next().toString())
                                .toList(),
                        "a second instance's start rewrites nothing");
            }
        }
    }
}
