package dev.outbox.api;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.slf4j.LoggerFactory;

/**
 * Every log record of the test JVM, at every level, from both logging systems: SLF4J/logback
 * (this project, MyBatis, HikariCP) with the root and {@code dev.outbox} at ALL, and
 * java.util.logging (Jersey and Grizzly) through a handler at ALL on the JUL root, with the JUL
 * root and the Jersey and Grizzly loggers at ALL. Records go to the capture only (the console
 * appenders are detached meanwhile); {@link #close()} restores every level, handler and appender.
 */
final class LogCapture implements AutoCloseable {
    private static final String[] JUL_LIBRARIES = {"", "org.glassfish", "org.glassfish.jersey", "org.glassfish.grizzly"
    };

    private final List<String> lines = new ArrayList<>();
    private final Set<String> loggers = new TreeSet<>();
    private final Map<java.util.logging.Logger, java.util.logging.Level> julLevels = new LinkedHashMap<>();
    private final Map<Logger, Level> logbackLevels = new LinkedHashMap<>();
    private final List<Appender<ILoggingEvent>> detached = new ArrayList<>();
    private final Handler julHandler;
    private final AppenderBase<ILoggingEvent> appender;
    private final Logger root;

    private LogCapture() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
            detached.add(it.next());
        }
        detached.forEach(root::detachAppender);
        appender = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                record(
                        e.getLoggerName(),
                        "SLF4J " + e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage()
                                + describe(e.getThrowableProxy()) + " " + e.getMDCPropertyMap());
            }
        };
        appender.setContext(context);
        appender.start();
        root.addAppender(appender);
        for (Logger l : new Logger[] {root, context.getLogger("dev.outbox")}) {
            logbackLevels.put(l, l.getLevel());
            l.setLevel(Level.ALL);
        }

        SimpleFormatter formatter = new SimpleFormatter();
        julHandler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                String logger = r.getLoggerName() == null ? "" : r.getLoggerName();
                record(
                        logger,
                        "JUL " + r.getLevel() + " " + logger + " " + formatter.formatMessage(r)
                                + describe(r.getThrown()));
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        julHandler.setLevel(java.util.logging.Level.ALL);
        for (String name : JUL_LIBRARIES) {
            java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
            julLevels.put(l, l.getLevel());
            l.setLevel(java.util.logging.Level.ALL);
        }
        java.util.logging.Logger.getLogger("").addHandler(julHandler);
    }

    static LogCapture everything() {
        return new LogCapture();
    }

    private synchronized void record(String logger, String line) {
        loggers.add(logger);
        lines.add(line);
    }

    synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    synchronized Set<String> loggers() {
        return Set.copyOf(loggers);
    }

    private static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null && c.getCause() != c; c = c.getCause()) {
            sb.append(" | ").append(c);
        }
        return sb.toString();
    }

    private static String describe(IThrowableProxy t) {
        StringBuilder sb = new StringBuilder();
        for (IThrowableProxy c = t; c != null; c = c.getCause()) {
            sb.append(" | ").append(c.getClassName()).append(": ").append(c.getMessage());
        }
        return sb.toString();
    }

    @Override
    public void close() {
        java.util.logging.Logger.getLogger("").removeHandler(julHandler);
        julLevels.forEach(java.util.logging.Logger::setLevel);
        logbackLevels.forEach(Logger::setLevel);
        root.detachAppender(appender);
        appender.stop();
        detached.forEach(root::addAppender);
    }
}
