package dev.outbox.config;

import java.util.List;

/**
 * How every process logs. Logback itself reads these two variables ({@code logback.xml} in
 * {@code ops/process}, the artifact only processes depend on); they are declared here so that they are documented with the others and
 * checked before anything logs: a misspelt {@code OUTBOX_LOG_FORMAT} would otherwise name an
 * appender that does not exist, and the process would run without printing a line.
 */
public final class LoggingConfig {
    static final Setting<String> LEVEL = Setting.matching(
            "OUTBOX_LOG_LEVEL",
            "INFO",
            "(?i)TRACE|DEBUG|INFO|WARN|ERROR|OFF",
            "a level: TRACE, DEBUG, INFO, WARN, ERROR or OFF (any case)",
            "level of this project's loggers");
    static final Setting<String> FORMAT =
            Setting.oneOf("OUTBOX_LOG_FORMAT", "text", List.of("text", "json"), "`json` for one JSON object per line");

    private LoggingConfig() {}

    /**
     * Checks both variables; on a bad one prints why to standard error (logging may not work) and
     * exits with {@link ProcessMain#CANNOT_START}.
     */
    public static void checkOrExit(String process, Settings settings) {
        try {
            settings.get(LEVEL);
            settings.get(FORMAT);
        } catch (ConfigurationException e) {
            System.err.println(process + " cannot start: " + e.getMessage());
            System.exit(ProcessMain.CANNOT_START);
        }
    }
}
