package dev.outbox.persistence.type;

import org.apache.ibatis.type.MappedTypes;

@MappedTypes(String[].class)
public final class StringArrayTypeHandler extends SqlArrayTypeHandler<String> {
    public StringArrayTypeHandler() {
        super("text");
    }
}
