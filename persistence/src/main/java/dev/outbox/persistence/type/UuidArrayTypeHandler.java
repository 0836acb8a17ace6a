package dev.outbox.persistence.type;

import java.util.UUID;
import org.apache.ibatis.type.MappedTypes;

@MappedTypes(UUID[].class)
public final class UuidArrayTypeHandler extends SqlArrayTypeHandler<UUID> {
    public UuidArrayTypeHandler() {
        super("uuid");
    }
}
