package dev.outbox.bench;

import dev.outbox.api.ApiApp;
import dev.outbox.config.ProcessSignals;
import dev.outbox.config.Settings;
import dev.outbox.persistence.outbox.OutboxMapper;
import java.lang.reflect.Proxy;

/**
 * The API process for the write-overhead benchmark. {@code with-outbox} is the production API
 * exactly; {@code without-outbox} is the same API with the one benchmark-only switch: the
 * {@link OutboxMapper} the order service calls does nothing, so {@code POST /orders} writes the
 * order and its lines in the same transaction and no outbox row (and, so, no notification).
 */
public final class BenchApiMain {
    private BenchApiMain() {}

    public static void main(String[] args) throws Exception {
        ProcessSignals signals = ProcessSignals.install();
        boolean withOutbox = switch (args.length == 1 ? args[0] : "") {
            case "with-outbox" -> true;
            case "without-outbox" -> false;
            default -> throw new IllegalArgumentException("usage: BenchApiMain with-outbox|without-outbox");
        };
        Settings settings = Settings.fromEnvironment();
        ApiApp app = withOutbox
                ? ApiApp.start(settings)
                : ApiApp.start(
                        settings, binder -> binder.bind(OutboxMapper.class).toInstance(noOutbox()));
        System.out.println("bench api ready on port " + app.port() + (withOutbox ? " with" : " without") + " outbox");
        signals.await();
        app.close();
        System.exit(0);
    }

    private static OutboxMapper noOutbox() {
        return (OutboxMapper) Proxy.newProxyInstance(
                OutboxMapper.class.getClassLoader(), new Class<?>[] {OutboxMapper.class}, (proxy, method, args) -> {
                    if (method.getName().equals("insert")) {
                        return 1;
                    }
                    if (method.getDeclaringClass() == Object.class) {
                        return switch (method.getName()) {
                            case "hashCode" -> System.identityHashCode(proxy);
                            case "equals" -> proxy == args[0];
                            default -> "OutboxMapper(benchmark: no outbox)";
                        };
                    }
                    throw new UnsupportedOperationException("the no-outbox API only places orders: " + method);
                });
    }
}
