package dev.outbox.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The processes' text log (the shipped {@code logback.xml}, not the tests' own): a value from a
 * row or a delivery (an aggregate id, a correlation id, a reason quoting them) may hold any
 * character a SQL client stored, and a line break in it must not start a line of its own that a
 * reader would take for the process's.
 */
class LogFormatTest {
    @Test
    void controlCharactersInRowValuesCannotForgeALine() throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(LogFormatTest.class.getResource("/logback.xml"));
        Logger logger = context.getLogger("dev.outbox.relay.OutcomeRecorder");
        @SuppressWarnings("unchecked")
        OutputStreamAppender<ILoggingEvent> text = (OutputStreamAppender<ILoggingEvent>)
                context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("text");

        context.getMDCAdapter().put("aggregate_id", "a-1\n2026-01-01T00:00:00Z ERROR [main] forged - MDC");
        LoggingEvent event =
                new LoggingEvent(Logger.class.getName(), logger, Level.WARN, "parked {}", null, new Object[] {
                    "row\r\n2026-01-01T00:00:00Z INFO  [main] forged - message\u0007"
                });
        String written = new String(text.getEncoder().encode(event), StandardCharsets.UTF_8);
        context.stop();

        List<String> lines = written.lines().toList();
        assertEquals(1, lines.size(), "one event, one line: " + lines);
        assertTrue(lines.get(0).contains("aggregate_id=a-1 2026-01-01"), lines.get(0));
        assertTrue(lines.get(0).contains("parked row  2026-01-01"), lines.get(0));
    }
}
