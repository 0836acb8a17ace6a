package dev.outbox.persistence.type;

import org.apache.ibatis.type.MappedTypes;

@MappedTypes(Long[].class)
public final class LongArrayTypeHandler extends SqlArrayTypeHandler<Long> {
    public LongArrayTypeHandler() {
        super("int8");
    }
}
