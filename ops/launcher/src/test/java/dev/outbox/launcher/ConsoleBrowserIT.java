package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.junit.TestResources;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser: headless Chromium from Debian's packages, driven by Selenium,
 * on the whole system (API, relay, ledger consumer in one JVM). The operator path of the RUNBOOK:
 * log in, see the parked row in the overview, open it, read why it failed, fix the cause, retry
 * it, see it published and the audit entry. The read-only path: no action controls, no payload,
 * and the API refuses an action anyway. Values from the database carrying script and markup
 * render as text. Screenshots of each page go to {@code target/console-screenshots}.
 */
class ConsoleBrowserIT {
    private static final String TOKEN = "console-operator-" + UUID.randomUUID();
    private static final String READ_TOKEN = "console-reader-" + UUID.randomUUID();
    private static final String ROUTING_KEY = "console.test.unbound";
    /** Carried as a class by every element a probe would create if the page parsed it as HTML. */
    private static final String MARKER =
            "xss-probe-" + UUID.randomUUID().toString().substring(0, 8);

    private static final String SCRIPT_PROBE = "<script class=\"" + MARKER + "\">window.__xss = 1</script>";
    private static final String MARKUP_PROBE = "\"><img src=x class=\"" + MARKER + "\" onerror=\"window.__xss = 2\">";
    /**
     * Records every Content-Security-Policy violation of the page. Installed through DevTools, so it
     * runs in every new document before the console's own script and is not itself subject to the
     * CSP. Markup rendered from a probe is refused by the CSP (its image source, its inline handler
     * or script), and each refusal lands here: the check the CSP cannot hide.
     */
    private static final String CSP_LISTENER = "window.__cspViolations = [];"
            + " document.addEventListener('securitypolicyviolation', (e) =>"
            + " window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || '')));";

    private static final Path SHOTS = Path.of("target", "console-screenshots");
    private static final TestDatabase DB = TestDatabase.get();
    private static final TestBroker BROKER = TestBroker.get();

    @RegisterExtension
    final TestResources closing = new TestResources();

    private String url;
    private WebDriver browser;
    private WebDriverWait wait;

    @BeforeEach
    void start() throws IOException {
        String chromium = System.getenv().getOrDefault("OUTBOX_CHROMIUM", "/usr/bin/chromium");
        String driver = System.getenv().getOrDefault("OUTBOX_CHROMEDRIVER", "/usr/bin/chromedriver");
        boolean present = new File(chromium).canExecute() && new File(driver).canExecute();
        String missing =
                "no " + chromium + " or " + driver + ": apt-get install chromium chromium-driver (.ci/run does)";
        if (System.getenv("OUTBOX_REQUIRE_BROWSER") != null) {
            assertTrue(present, missing); // CI: a missing browser is a failure, not a skip
        }
        Assumptions.assumeTrue(present, missing);
        DB.reset();
        BROKER.declareTopicExchange(Topology.ORDERS_EXCHANGE);
        BROKER.purgeIfExists(LedgerConsumer.QUEUE);
        Map<String, String> env = TestSystem.env(Map.of(
                "OUTBOX_OPS_TOKEN",
                TOKEN,
                "OUTBOX_OPS_READ_TOKEN",
                READ_TOKEN,
                // the rows it repairs (ops.test, ops.bulk) have no contract: they are to meet the broker
                "OUTBOX_RELAY_UNREGISTERED_TYPES",
                "json-only"));
        Launcher launcher = Launcher.start(new Settings(env));
        closing.add(launcher);
        url = "http://127.0.0.1:" + launcher.api().port() + "/console";

        Path profile = Files.createTempDirectory("console-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium);
        // the flags this machine's Chromium needs headless as root, and no calls home (refused here)
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile,
                "--window-size=1280,900");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(driver))
                .build();
        ChromeDriver chrome = new ChromeDriver(service, options);
        browser = chrome;
        closing.add(browser::quit);
        chrome.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", CSP_LISTENER));
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        Files.createDirectories(SHOTS);
    }

    private void logIn(String token, String operator) throws IOException {
        browser.get(url);
        until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(token);
        if (operator != null) {
            browser.findElement(By.id("operator")).sendKeys(operator);
        }
        browser.findElement(By.id("login")).click();
        until(ExpectedConditions.textToBePresentInElementLocated(By.tagName("h1"), "Overview"));
    }

    /** Waits for a condition; on a timeout, says what the page showed instead (and keeps a screenshot). */
    private <T> T until(org.openqa.selenium.support.ui.ExpectedCondition<T> condition) throws IOException {
        try {
            return wait.until(condition);
        } catch (org.openqa.selenium.TimeoutException e) {
            screenshot("failed");
            throw new AssertionError(
                    e.getMessage() + "\nthe page said: "
                            + browser.findElement(By.id("notice")).getText() + "\n" + mainText(),
                    e);
        }
    }

    private void open(String route) {
        ((JavascriptExecutor) browser).executeScript("location.hash = arguments[0]", route);
    }

    private void screenshot(String name) throws IOException {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    private String mainText() {
        return browser.findElement(By.id("main")).getText();
    }

    /** A row parked long ago by hand, every field a probe: it must all come out as text. */
    private UUID probeRow() {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload, status, attempt_count, last_error_code, last_error_message)"
                        + " VALUES (?, 'probe', ?, 'order.created', ?, 'order.created', ?::jsonb, 'PARKED', 1,"
                        + " 'PAYLOAD_INVALID', ?)",
                id,
                MARKUP_PROBE,
                Topology.ORDERS_EXCHANGE,
                "{\"note\": \"" + SCRIPT_PROBE.replace("\"", "\\\"") + "\"}",
                SCRIPT_PROBE + " " + MARKUP_PROBE);
        return id;
    }

    /**
     * No probe became markup, whatever the CSP did with it: no element carries the probes' marker,
     * the page holds no image, frame or script but the console's own and no inline handler, and the
     * CSP refused nothing (a refusal means the page tried to load or run something a value carried).
     * {@code window.__xss} alone could never fail here: the CSP stops the probes' script before it runs.
     */
    @SuppressWarnings("unchecked")
    private void assertProbesStayText() {
        Map<String, Object> found = (Map<String, Object>) ((JavascriptExecutor) browser)
                .executeScript(
                        "const marker = arguments[0];"
                                + " const show = (e) => e.outerHTML.slice(0, 160);"
                                + " const markup = [...document.getElementsByClassName(marker)].map(show);"
                                + " const foreign = [...document.querySelectorAll('img, iframe, object, embed, script')]"
                                + "   .filter((e) => e.getAttribute('src') !== '/console/console.js').map(show);"
                                + " const handlers = [...document.querySelectorAll('*')]"
                                + "   .filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).map(show);"
                                + " return {markup, foreign, handlers, violations: window.__cspViolations,"
                                + "   ran: window.__xss === undefined ? null : window.__xss};",
                        MARKER);
        assertTrue(found.get("violations") instanceof List, "the CSP violation listener is not installed: " + found);
        // one comparison, so that a failure shows every kind of trace at once: elements made from a probe,
        // images, frames or scripts the console never makes, inline handlers, what the CSP refused, a run
        Map<String, Object> clean = new java.util.HashMap<>(
                Map.of("markup", List.of(), "foreign", List.of(), "handlers", List.of(), "violations", List.of()));
        clean.put("ran", null);
        assertEquals(clean, found, "a value from the database was rendered as HTML");
    }

    /** Nothing sticks out sideways at a phone's width; on failure, says which elements do. */
    private void assertNoSidewaysScrollAt390(String page) throws IOException {
        browser.manage().window().setSize(new Dimension(390, 844));
        // an element sticks out when its box does, or when its text overflows a box that does not scroll
        Object wide = ((JavascriptExecutor) browser)
                .executeScript("const w = document.documentElement.clientWidth;"
                        + " if (document.documentElement.scrollWidth <= w) return null;"
                        + " const scrolls = (e) => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(e).overflowX);"
                        + " return [...document.querySelectorAll('body *')]"
                        + "   .filter((e) => !e.parentElement.closest('.scroll') && (e.getBoundingClientRect().right > w + 0.5"
                        + "     || (e.clientWidth > 0 && !scrolls(e) && e.scrollWidth > e.clientWidth + 1)))"
                        + "   .slice(0, 8).map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')"
                        + "     + ' right=' + Math.round(e.getBoundingClientRect().right) + ' scrollWidth=' + e.scrollWidth + ': '"
                        + "     + (e.textContent || '').slice(0, 60)).join('\\n') + ' (page width ' + w + ')';");
        screenshot(page + "-390px");
        assertEquals(null, wide, "the " + page + " page scrolls sideways at 390 px");
    }

    @Test
    void theOperatorFindsTheParkedRowFixesTheCauseRetriesItAndSeesItPublishedAndAudited() throws Exception {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload) VALUES (?, 'ops', 'console-path', 'ops.test', ?, ?, '{}'::jsonb)",
                id,
                Topology.ORDERS_EXCHANGE,
                ROUTING_KEY);
        UUID probe = probeRow();

        // log in; the overview (refreshing itself) shows the parked group once the relay has tried
        logIn(TOKEN, "night-shift");
        WebElement group = until(ExpectedConditions.elementToBeClickable(By.linkText("UNROUTABLE")));
        screenshot("overview");
        assertFalse(browser.getCurrentUrl().contains(TOKEN), "the token is never in the address");
        assertTrue(browser.manage().getCookies().isEmpty(), "no cookie holds anything");

        // the group's rows, then the row: why it failed
        group.click();
        until(ExpectedConditions.elementToBeClickable(By.linkText(id.toString())))
                .click();
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("row-status"), "PARKED"));
        String error = browser.findElement(By.id("row-error")).getText();
        assertTrue(error.startsWith("UNROUTABLE: ") && error.contains("312"), error);
        screenshot("row-detail");

        // the row actions are the API's own (x-console in /openapi.json), in its order: a note first
        List<String> buttons = browser.findElements(By.cssSelector("section .actions button")).stream()
                .map(WebElement::getText)
                .toList();
        assertEquals(List.of("Retry now", "Replay", "Release lease", "Add note", "Cancel"), buttons);
        browser.findElement(By.id("action-note")).click();
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "A reason is required to note"));
        browser.findElement(By.id("reason")).sendKeys("looking at the binding");
        browser.findElement(By.id("action-note")).click();
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "note: 0 row(s) changed"));
        assertEquals("PARKED", browser.findElement(By.id("row-status")).getText(), "a note changes nothing");
        browser.findElement(By.id("reason")).clear();

        // fix the cause (bind a queue to the routing key), retry, watch it publish
        RecordingQueue queue = BROKER.bindQueue(Topology.ORDERS_EXCHANGE, ROUTING_KEY);
        closing.add(queue);
        browser.findElement(By.id("action-retry")).click();
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "retry: 1 row(s) changed"));
        WebElement audit = browser.findElement(By.cssSelector("tr.audit-entry"));
        assertTrue(audit.getText().contains("night-shift") && audit.getText().contains("RETRY"), audit.getText());
        // no reload: the page follows a row in flight until it settles
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("row-status"), "PUBLISHED"));
        assertEquals(
                id.toString(), queue.await(1, Duration.ofSeconds(10)).get(0).messageId());
        screenshot("row-published");

        // the overview's chart counts it: one row published in the last hour, in 60 one-minute bars
        open("#/overview");
        WebElement chart = until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("svg.chart")));
        assertEquals(60, chart.findElements(By.cssSelector("rect")).size());
        assertTrue(chart.getDomAttribute("aria-label").contains(": 1 in all"), chart.getDomAttribute("aria-label"));
        // the finished statuses are counted like the others (both cards read 0 before, whatever the table held)
        assertEquals("1", card("PUBLISHED"));
        assertEquals("0", card("CANCELLED"));

        // a consumer lost its copy: replay the aggregate; the same message id arrives again
        open("#/aggregate?type=ops&id=console-path");
        until(ExpectedConditions.elementToBeClickable(By.id("replay-aggregate")));
        browser.findElement(By.id("replay-reason")).sendKeys("ledger restored from backup");
        browser.findElement(By.id("replay-aggregate")).click();
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("replay-result"), "1 version(s) queued"));
        WebElement replayed = browser.findElement(By.cssSelector("section tr.audit-entry"));
        assertTrue(replayed.getText().contains("REPLAY_AGGREGATE"), replayed.getText());
        assertEquals(
                String.valueOf(DB.scalar("SELECT id FROM ops_audit WHERE action = 'REPLAY_AGGREGATE'")),
                replayed.getDomAttribute("data-audit-id"),
                "the entry this replay wrote, named by its answer, not the latest one");
        assertEquals(
                id.toString(), queue.await(1, Duration.ofSeconds(10)).get(0).messageId(), "the replay, same id");

        // the probes: every value shows as the text it is, none runs, none becomes markup
        open("#/row/" + probe);
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("row-error"), SCRIPT_PROBE));
        assertTrue(browser.findElement(By.id("payload")).getText().contains(SCRIPT_PROBE.replace("\"", "\\\"")));
        assertTrue(mainText().contains(MARKUP_PROBE), "the aggregate id, as text");
        assertProbesStayText();
        open("#/search?status=PARKED");
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("main"), "probe/" + MARKUP_PROBE));
        assertProbesStayText();
        assertFalse(mainText().contains("null"), "an absent value shows as '-' or not at all: " + mainText());
        screenshot("search");

        open("#/audit");
        until(ExpectedConditions.textToBePresentInElementLocated(By.tagName("h1"), "Audit log"));
        assertTrue(mainText().contains("night-shift"), mainText());
        screenshot("audit");

        // a phone's width: the row detail still reads, nothing needs a wider screen
        open("#/row/" + id);
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("row-status"), "PUBLISHED"));
        assertNoSidewaysScrollAt390("row-detail");
    }

    /**
     * A row a newer version wrote, in a status and with an error code this version has no name for:
     * the overview gives the status a card of its own, the row's page shows both as they are stored,
     * and a search by that status finds the row.
     */
    @Test
    void aStatusAndCodeOfANewerVersionAreShownAsTheyAreStored() throws Exception {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload, status, last_error_code, last_error_message)"
                        + " VALUES (?, 'newer', 'n-1', 'order.created', ?, 'order.created', '{}'::jsonb,"
                        + " 'ARCHIVED_BY_V9', 'FUTURE_727', 'a newer version''s words')",
                id,
                Topology.ORDERS_EXCHANGE);
        logIn(TOKEN, "night-shift");
        until(ExpectedConditions.presenceOfElementLocated(By.id("card-ARCHIVED_BY_V9")));
        assertEquals("1", card("ARCHIVED_BY_V9"));
        open("#/row/" + id);
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("row-status"), "ARCHIVED_BY_V9"));
        until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("row-error"), "FUTURE_727: a newer version's words"));
        open("#/search?status=ARCHIVED_BY_V9");
        until(ExpectedConditions.elementToBeClickable(By.linkText(id.toString())));
    }

    /** A status card's value as the overview shows it. */
    private String card(String status) {
        return browser.findElement(By.cssSelector("#card-" + status + " .value"))
                .getText();
    }

    @Test
    void bulkRetryCountsFirstThenRetriesAndTheAggregateShowsItsVersionsInOrder() throws Exception {
        // more published rows than are counted one by one, and a few cancelled ones
        DB.update("INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                + " routing_key, payload, status, attempt_count, published_at) SELECT gen_random_uuid(), 'history',"
                + " 'h-' || g, 'ops.history', 'orders.events', 'ops.history', '{}'::jsonb, 'PUBLISHED', 1, now()"
                + " FROM generate_series(1, 12000) g");
        DB.update("INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                + " routing_key, payload, status, attempt_count, cancelled_at, last_error_code) SELECT"
                + " gen_random_uuid(), 'history', 'c-' || g, 'ops.history', 'orders.events', 'ops.history',"
                + " '{}'::jsonb, 'CANCELLED', 1, now(), 'OPERATOR' FROM generate_series(1, 2) g");
        DB.execute("ANALYZE message_outbox");
        List<UUID> ids = new ArrayList<>();
        for (int version = 1; version <= 3; version++) {
            UUID id = UUID.randomUUID();
            ids.add(id);
            DB.update(
                    "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                            + " exchange_name, routing_key, payload, status, attempt_count, last_error_code,"
                            + " last_error_message) VALUES (?, 'bulk', 'b-1', ?, 'ops.bulk', ?, ?, '{}'::jsonb,"
                            + " 'PARKED', 5, 'NACKED', 'basic.nack from the broker')",
                    id,
                    (long) version,
                    Topology.ORDERS_EXCHANGE,
                    ROUTING_KEY);
        }
        logIn(TOKEN, "day-shift");
        // too many published rows to count on every refresh: PostgreSQL's estimate, and the card says so
        until(ExpectedConditions.presenceOfElementLocated(By.id("card-PUBLISHED")));
        assertTrue(card("PUBLISHED").matches("\u2248 1[12],\\d{3}"), card("PUBLISHED"));
        assertEquals(
                "PUBLISHED (estimate)",
                browser.findElement(By.cssSelector("#card-PUBLISHED .label")).getText());
        assertEquals("2", card("CANCELLED"));
        screenshot("overview-estimate");

        // the aggregate: its versions in order, each a link to the row
        open("#/aggregate?type=bulk&id=b-1");
        until(ExpectedConditions.textToBePresentInElementLocated(By.tagName("h1"), "bulk/b-1"));
        List<String> order = browser.findElements(By.cssSelector("main tbody tr td:last-child")).stream()
                .map(WebElement::getText)
                .toList();
        assertEquals(ids.stream().map(UUID::toString).toList(), order, "oldest version first");
        screenshot("aggregate");

        // status alone is too wide a filter: the page says so instead of offering the button
        open("#/search?status=PARKED");
        until(ExpectedConditions.presenceOfElementLocated(By.id("bulk-hint")));

        // narrowed by error code: the dry run counts, then the operator confirms with a reason
        open("#/search?status=PARKED&errorCode=NACKED");
        until(ExpectedConditions.elementToBeClickable(By.id("bulk-dry-run"))).click();
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("bulk-count"), "3 row(s) match"));
        assertEquals(
                3,
                DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PARKED'"),
                "a dry run changes nothing");
        browser.findElement(By.id("bulk-reason")).sendKeys("broker alarm cleared");
        browser.findElement(By.id("bulk-confirm")).click();
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("bulk-result"), "3 row(s) retried"));
        WebElement entry = browser.findElement(By.cssSelector("#main tr.audit-entry"));
        assertTrue(entry.getText().contains("BULK_RETRY"), "the bulk retry's audit entry is shown");
        assertEquals(
                String.valueOf(DB.scalar("SELECT id FROM ops_audit WHERE action = 'BULK_RETRY'")),
                entry.getDomAttribute("data-audit-id"),
                "the entry this retry wrote, named by its answer, not the latest one");
        assertEquals(
                List.of(Map.of("actor", "day-shift", "affected", 3, "reason", "broker alarm cleared")),
                DB.rows("SELECT actor, affected, reason FROM ops_audit WHERE action = 'BULK_RETRY'"));
        screenshot("bulk-retry");

        open("#/reconcile");
        until(ExpectedConditions.presenceOfElementLocated(By.id("reconcile-verdict")));
        screenshot("reconcile");
    }

    @Test
    void theReadOnlyTokenSeesNoActionsAndNoPayloadAndIsRefusedAnAction() throws Exception {
        UUID probe = probeRow();
        // by keyboard alone: the token, Enter; then a link followed with Enter, as a mouse-less operator would
        browser.get(url);
        until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        assertEquals(
                "token",
                browser.switchTo().activeElement().getDomAttribute("id"),
                "the focus starts in the token field");
        browser.switchTo().activeElement().sendKeys(READ_TOKEN, Keys.ENTER);
        until(ExpectedConditions.textToBePresentInElementLocated(By.tagName("h1"), "Overview"));
        until(ExpectedConditions.elementToBeClickable(By.linkText("PAYLOAD_INVALID")))
                .sendKeys(Keys.ENTER);
        until(ExpectedConditions.elementToBeClickable(By.linkText(probe.toString())))
                .sendKeys(Keys.ENTER);
        until(ExpectedConditions.presenceOfElementLocated(By.id("payload-hidden")));
        assertTrue(browser.findElements(By.cssSelector("#action-retry, #action-cancel, #reason"))
                .isEmpty());
        assertTrue(browser.findElements(By.id("payload")).isEmpty());
        assertFalse(mainText().contains(SCRIPT_PROBE.substring(8)) && mainText().contains("note"), "payload shown");
        assertTrue(browser.findElement(By.id("payload-hidden")).getText().contains("sha256"));
        assertProbesStayText();
        screenshot("read-only-row");
        // the SHA-256 line and the probe's long values wrap at a phone's width
        assertNoSidewaysScrollAt390("read-only-row");
        browser.manage().window().setSize(new Dimension(1280, 900));

        // the page hides the buttons; the API is what refuses: the same call the button would make
        Object status = ((JavascriptExecutor) browser)
                .executeAsyncScript(
                        "const done = arguments[arguments.length - 1];"
                                + " fetch('/ops/outbox/' + arguments[0] + '/retry', {method: 'POST',"
                                + " headers: {'Authorization': 'Bearer ' + sessionStorage.getItem('outbox-ops-token'),"
                                + " 'Content-Type': 'application/json'}, body: '{}'}).then(r => done(r.status));",
                        probe.toString());
        assertEquals(403L, ((Number) status).longValue());
        assertEquals(
                "PARKED",
                DB.rows("SELECT status FROM message_outbox WHERE id = ?", probe)
                        .get(0)
                        .get("status"));
    }
}
