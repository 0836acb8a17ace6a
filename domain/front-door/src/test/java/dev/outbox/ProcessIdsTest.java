package dev.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ProcessIdsTest {
    @Test
    void anIdIsTheHostNameAndThePid() {
        assertEquals(ProcessIds.hostName() + "-" + ProcessHandle.current().pid(), ProcessIds.hostAndPid());
    }
}
