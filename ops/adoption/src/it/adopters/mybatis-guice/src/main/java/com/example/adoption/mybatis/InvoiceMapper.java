package com.example.adoption.mybatis;

import java.math.BigDecimal;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;

/** The service's own mapper, on its own table. */
public interface InvoiceMapper {
    @Insert("INSERT INTO " + Invoicing.TABLE + " (id, amount) VALUES (#{id}, #{amount})")
    void insert(@Param("id") UUID id, @Param("amount") BigDecimal amount);
}
