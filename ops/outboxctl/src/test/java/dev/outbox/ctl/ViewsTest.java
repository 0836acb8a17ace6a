package dev.outbox.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.ops.views.OpsActionViews;
import dev.outbox.ops.views.OpsOverviewViews;
import dev.outbox.ops.views.OpsViews;
import java.util.List;
import org.junit.jupiter.api.Test;

class ViewsTest {
    /** An answer as the CLI reads it. */
    private static <T> T read(String s, Class<T> view) throws Exception {
        return OpsClient.read(200, OpsClient.JSON.readTree(s.replace('\'', '"')), view);
    }

    private static OpsViews.Row row(String s) throws Exception {
        return read(s, OpsViews.Row.class);
    }

    private static final String X = "00000000-0000-0000-0000-00000000000a";

    private static final String PARKED = "{'id':'11111111-1111-1111-1111-111111111111','aggregateType':'order',"
            + "'aggregateId':'o-1','aggregateVersion':3,'messageType':'order.created','messageVersion':1,"
            + "'exchange':'orders.events','routingKey':'order.created','status':'PARKED','attemptCount':5,"
            + "'nextAttemptAt':'2026-11-30T09:00:00.123456Z','lastErrorCode':'UNROUTABLE',"
            + "'lastErrorMessage':'basic.return 312 NO_ROUTE','createdAt':'2026-11-30T08:59:59.987Z',"
            + "'correlationId':'corr-1','tenantId':'t-1','payloadBytes':17,'payloadSha256':'abc','headers':{}}";

    @Test
    void listIsATableWithOneLinePerRow() throws Exception {
        OpsViews.Row pending = row("{'id':'22222222-2222-2222-2222-222222222222','aggregateType':'order',"
                + "'aggregateId':'o-2','messageType':'payment.captured','status':'PENDING','attemptCount':0,"
                + "'createdAt':'2026-11-30T10:00:00Z'}");
        String t = Views.list(List.of(row(PARKED), pending));
        String[] lines = t.split("\n");
        assertEquals(3, lines.length, t);
        assertEquals(
                List.of("ID", "STATUS", "TYPE", "AGGREGATE", "VER", "ATTEMPTS", "ERROR", "CREATED"),
                List.of(lines[0].trim().split("\\s+")));
        assertEquals(
                List.of(
                        "11111111-1111-1111-1111-111111111111",
                        "PARKED",
                        "order.created",
                        "order/o-1",
                        "3",
                        "5",
                        "UNROUTABLE",
                        "2026-11-30T08:59:59Z"),
                List.of(lines[1].split("\\s+")));
        assertEquals(
                List.of(
                        "22222222-2222-2222-2222-222222222222",
                        "PENDING",
                        "payment.captured",
                        "order/o-2",
                        "-",
                        "0",
                        "-",
                        "2026-11-30T10:00:00Z"),
                List.of(lines[2].split("\\s+")));
        // fixed width: every column starts at the same offset on every line
        assertEquals(lines[0].indexOf("STATUS"), lines[2].indexOf("PENDING"));
        assertEquals(lines[0].indexOf("CREATED"), lines[1].indexOf("2026-11-30T08:59:59Z"));
        assertEquals("no messages match\n", Views.list(List.of()));
    }

    @Test
    void showPrintsTheLastErrorLeaseBlockerAndWhatToDo() throws Exception {
        String s = Views.show(row(PARKED));
        assertTrue(s.contains("status:           PARKED\n"), s);
        assertTrue(s.contains("last error:       UNROUTABLE: basic.return 312 NO_ROUTE\n"), s);
        assertTrue(s.contains("attempts:         5\n"), s);
        assertTrue(s.contains("next attempt at:  2026-11-30T09:00:00Z\n"), s);
        assertTrue(s.contains("aggregate:        order/o-1 version 3\n"), s);
        assertTrue(s.contains("lease:            none\n"), s);
        assertTrue(s.contains("blocked by:       nothing\n"), s);
        assertTrue(s.contains("payload:          17 bytes, sha256 abc"), s);
        assertTrue(s.contains("next step:        no queue is bound to orders.events for routing key order.created"), s);

        OpsViews.Row leased = row("{'id':'" + X + "','status':'IN_PROGRESS','messageType':'t','attemptCount':1,"
                + "'lease':{'lockedBy':'relay-7','lockedAt':'2026-11-30T09:00:00Z','leaseToken':42,"
                + "'expiresAt':'2026-11-30T09:02:00Z'},'payload':{'a':1}}");
        String l = Views.show(leased);
        assertTrue(
                l.contains("lease:            held by relay-7 since 2026-11-30T09:00:00Z (token 42),"
                        + " expires 2026-11-30T09:02:00Z\n"),
                l);
        assertTrue(l.contains("payload:          {\"a\":1}\n"), l);
        assertTrue(l.contains("last error:       -\n"), l);
        assertTrue(l.contains("outboxctl release " + X), l);

        OpsViews.Row blocked = row("{'id':'22222222-2222-2222-2222-222222222222','status':'PENDING',"
                + "'aggregateType':'order','aggregateId':'o','aggregateVersion':2,'blockedBy':{'id':'" + X + "',"
                + "'aggregateVersion':1,'status':'PARKED','lastErrorCode':'ACCESS_REFUSED'}}");
        String b = Views.show(blocked);
        assertTrue(b.contains("blocked by:       " + X + " (version 1, PARKED, ACCESS_REFUSED)\n"), b);
        assertTrue(b.contains("waits for version 1 of its aggregate"), b);
    }

    @Test
    void everyParkedErrorCodeHasItsOwnAdvice() throws Exception {
        assertTrue(step("PARKED", "PAYLOAD_INVALID").contains("outboxctl cancel " + X + " --reason"));
        assertTrue(step("PARKED", "UNENCODABLE").contains("outboxctl cancel " + X + " --reason"));
        assertTrue(step("PARKED", "UNENCODABLE").contains("never sent"));
        assertFalse(step("PARKED", "PAYLOAD_INVALID").contains("versioned rows"));
        assertTrue(Views.nextStep(row("{'id':'" + X + "','status':'PARKED','lastErrorCode':'PAYLOAD_INVALID',"
                        + "'aggregateVersion':2}"))
                .contains("cancelling versioned rows"));
        assertTrue(step("PARKED", "CONTRACT_UNKNOWN").contains("outboxctl register"));
        assertFalse(step("PARKED", "CONTRACT_UNKNOWN").contains("outboxctl retry"), "the relay retries it itself");
        assertTrue(step("PARKED", "EXCHANGE_NOT_FOUND").contains("does not exist"));
        assertTrue(step("PARKED", "ACCESS_REFUSED").contains("list_permissions"));
        assertTrue(step("PARKED", "CONFIRM_TIMEOUT").contains("broker health"));
        assertTrue(step("RETRYABLE_FAILED", "CONNECTION_LOST").contains("retries it by itself"));
        assertTrue(step("PUBLISHED", null).contains("consumer side"));
        assertTrue(step("CANCELLED", null).contains("will not be sent"));
    }

    private static String step(String status, String code) throws Exception {
        return Views.nextStep(row("{'id':'" + X + "','status':'" + status + "','exchange':'e','routingKey':'k'"
                + (code == null ? "" : ",'lastErrorCode':'" + code + "'") + "}"));
    }

    @Test
    void statsShowsEveryStatusTheFiguresAndParkedCodes() throws Exception {
        String s = Views.stats(read(
                "{'counts':{'PENDING':3,'IN_PROGRESS':0,'RETRYABLE_FAILED':1,'PARKED':12},"
                        + "'publishedLastHour':140,'oldestPendingAgeSeconds':303.5,'parkedByErrorCode':{'UNROUTABLE':10,"
                        + "'PAYLOAD_INVALID':2},'blockedAggregates':4}",
                OpsOverviewViews.Stats.class));
        assertTrue(
                s.startsWith("STATUS            COUNT\nPENDING               3\nIN_PROGRESS           0\n"
                        + "RETRYABLE_FAILED      1\nPARKED               12\n"),
                s);
        assertTrue(s.contains("published last hour: 140\n"), s);
        assertTrue(s.contains("oldest pending age:  5m 03s\n"), s);
        assertTrue(s.contains("blocked aggregates:  4\n"), s);
        assertTrue(s.contains("UNROUTABLE               10\n"), s);
        assertTrue(s.contains("PAYLOAD_INVALID           2\n"), s);
        assertTrue(Views.stats(read("{'counts':{},'parkedByErrorCode':{}}", OpsOverviewViews.Stats.class))
                .contains("no parked messages"));
    }

    /** A status or code a newer server wrote (a rolling upgrade) is printed as it came, never dropped. */
    @Test
    void aStatusOrCodeThisCliDoesNotKnowIsShownAsItIs() throws Exception {
        OpsViews.Row archived = row("{'id':'" + X + "','status':'ARCHIVED','lastErrorCode':'FUTURE_727',"
                + "'lastErrorMessage':'from a newer relay','messageType':'t','attemptCount':2,"
                + "'aggregateType':'order','aggregateId':'o-9','createdAt':'2026-11-30T10:00:00Z'}");
        String[] lines = Views.list(List.of(archived)).split("\n");
        assertEquals(2, lines.length);
        assertEquals(
                List.of(X, "ARCHIVED", "t", "order/o-9", "-", "2", "FUTURE_727", "2026-11-30T10:00:00Z"),
                List.of(lines[1].split("\\s+")));
        String s = Views.show(archived);
        assertTrue(s.contains("status:           ARCHIVED\n"), s);
        assertTrue(s.contains("last error:       FUTURE_727: from a newer relay\n"), s);
        assertTrue(s.contains("next step:        status ARCHIVED is not one this outboxctl knows"), s);
        String stats = Views.stats(read(
                "{'counts':{'PENDING':1,'IN_PROGRESS':0,'RETRYABLE_FAILED':0,'PARKED':4,'ARCHIVED':7},"
                        + "'parkedByErrorCode':{'UNROUTABLE':1,'FUTURE_727':3}}",
                OpsOverviewViews.Stats.class));
        assertTrue(stats.contains("PARKED                4\nARCHIVED              7\n"), stats);
        assertTrue(stats.contains("FUTURE_727                3\n"), stats);
    }

    @Test
    void reconcileSaysOkOrListsEachProblem() throws Exception {
        assertTrue(Views.reconcile(read(
                        "{'ok':true,'ordersMissingEvents':[],'expiredLeases':[],'blockedAggregates':[],"
                                + "'waitingConsumers':[],'pendingSideEffects':[]}",
                        OpsOverviewViews.Reconcile.class))
                .startsWith("OK"));
        String r = Views.reconcile(read(
                "{'ok':false,'ordersMissingEvents':[{'orderId':'" + X + "','orderVersion':2,"
                        + "'lastOutboxVersion':1}],'expiredLeases':[],'blockedAggregates':[{'aggregateType':'order',"
                        + "'aggregateId':'o3','parkedId':'11111111-1111-1111-1111-111111111111','parkedVersion':1,"
                        + "'errorCode':'UNROUTABLE','waiting':2}],'waitingConsumers':[],'pendingSideEffects':[]}",
                OpsOverviewViews.Reconcile.class));
        assertTrue(r.startsWith("NOT OK"), r);
        assertTrue(r.contains(X) && r.contains("order/o3") && r.contains("UNROUTABLE"), r);
        assertFalse(r.contains("Expired leases"), "empty sections are left out: " + r);
    }

    @Test
    void auditAndActionsAreReadable() throws Exception {
        String m2 = "22222222-2222-2222-2222-222222222222";
        String a = Views.audit(read(
                "{'items':[{'id':3,'at':'2026-11-30T09:00:00.5Z','actor':'alice','role':'operator','action':'RETRY',"
                        + "'messageIds':['" + X + "'],'reason':'bound the queue','affected':1},{'id':2,"
                        + "'at':'2026-11-30T08:00:00Z','actor':'bob','role':'operator','action':'BULK_RETRY',"
                        + "'messageIds':['" + m2 + "','" + X + "','" + X + "'],'affected':3}],'next':null}",
                OpsActionViews.AuditPage.class));
        String[] lines = a.split("\n");
        assertEquals(
                List.of("2026-11-30T09:00:00Z", "alice", "operator", "RETRY", "1", X, "bound", "the", "queue"),
                List.of(lines[1].split("\\s+")));
        assertTrue(lines[2].contains(m2 + " +2"), a);
        assertEquals(
                "RETRY: 1 message(s)\n  " + X + "\n",
                Views.action(read(
                        "{'action':'RETRY','affected':1,'ids':['" + X + "']}", OpsActionViews.ActionResult.class)));
    }

    @Test
    void agesReadLikeAPersonWouldSayThem() {
        assertEquals("0s", Format.age(0.4));
        assertEquals("59s", Format.age(59.9));
        assertEquals("1m 00s", Format.age(60));
        assertEquals("2h 05m", Format.age(7500));
        assertEquals("3d 4h", Format.age(3 * 86400 + 4 * 3600 + 59));
    }
}
