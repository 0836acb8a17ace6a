package dev.outbox.api.ops;

import jakarta.ws.rs.container.ContainerRequestContext;

/** Who is calling an {@code /ops} endpoint: the role its token grants and the name it gave. */
public record OpsPrincipal(Role role, String actor) {
    static final String PROPERTY = OpsPrincipal.class.getName();

    public enum Role {
        OPERATOR("operator"),
        READ_ONLY("read-only");

        private final String label;

        Role(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    public static OpsPrincipal of(ContainerRequestContext request) {
        Object p = request.getProperty(PROPERTY);
        if (!(p instanceof OpsPrincipal principal)) {
            throw new IllegalStateException("OpsAuthFilter did not run");
        }
        return principal;
    }

    public boolean canWrite() {
        return role == Role.OPERATOR;
    }
}
