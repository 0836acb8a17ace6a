package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.ledger.LedgerConsumer;
import dev.outbox.messaging.Topology;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
    private static final String SCRIPT_PROBE = "<script>window.__xss = 1</script>";
    private static final String MARKUP_PROBE = "\"><img src=x onerror=\"window.__xss = 2\">";
    private static final Path SHOTS = Path.of("target", "console-screenshots");
    private static final TestDatabase DB = TestDatabase.get();
    private static final TestBroker BROKER = TestBroker.get();

    private final List<AutoCloseable> closing = new ArrayList<>();
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
        Map<String, String> env =
                TestSystem.env(Map.of("OUTBOX_OPS_TOKEN", TOKEN, "OUTBOX_OPS_READ_TOKEN", READ_TOKEN));
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
        browser = new ChromeDriver(service, options);
        closing.add(browser::quit);
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        Files.createDirectories(SHOTS);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
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

    private void assertNoScriptRan() {
        Object xss = ((JavascriptExecutor) browser).executeScript("return window.__xss === undefined");
        assertEquals(Boolean.TRUE, xss, "a probe ran as script");
        assertTrue(browser.findElements(By.cssSelector("main img, main script")).isEmpty(), "a probe became markup");
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

        // a consumer lost its copy: replay the aggregate; the same message id arrives again
        open("#/aggregate?type=ops&id=console-path");
        until(ExpectedConditions.elementToBeClickable(By.id("replay-aggregate")));
        browser.findElement(By.id("replay-reason")).sendKeys("ledger restored from backup");
        browser.findElement(By.id("replay-aggregate")).click();
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("replay-result"), "1 version(s) queued"));
        assertTrue(browser.findElement(By.cssSelector("#replay-result + div tr.audit-entry, section tr.audit-entry"))
                .getText()
                .contains("REPLAY_AGGREGATE"));
        assertEquals(
                id.toString(), queue.await(1, Duration.ofSeconds(10)).get(0).messageId(), "the replay, same id");

        // the probes: every value shows as the text it is, none runs, none becomes markup
        open("#/row/" + probe);
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("row-error"), SCRIPT_PROBE));
        assertTrue(browser.findElement(By.id("payload")).getText().contains(SCRIPT_PROBE));
        assertTrue(mainText().contains(MARKUP_PROBE), "the aggregate id, as text");
        assertNoScriptRan();
        open("#/search?status=PARKED");
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("main"), "probe/" + MARKUP_PROBE));
        assertNoScriptRan();
        assertFalse(mainText().contains("null"), "an absent value shows as '-' or not at all: " + mainText());
        screenshot("search");

        open("#/audit");
        until(ExpectedConditions.textToBePresentInElementLocated(By.tagName("h1"), "Audit log"));
        assertTrue(mainText().contains("night-shift"), mainText());
        screenshot("audit");

        // a phone's width: the row detail still reads, nothing needs a wider screen
        browser.manage().window().setSize(new Dimension(390, 844));
        open("#/row/" + id);
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("row-status"), "PUBLISHED"));
        Object overflow = ((JavascriptExecutor) browser)
                .executeScript("return document.documentElement.scrollWidth > window.innerWidth");
        assertEquals(Boolean.FALSE, overflow, "the page scrolls sideways at 390 px");
        screenshot("row-detail-390px");
    }

    @Test
    void bulkRetryCountsFirstThenRetriesAndTheAggregateShowsItsVersionsInOrder() throws Exception {
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
        assertTrue(
                browser.findElement(By.cssSelector("#main tr.audit-entry"))
                        .getText()
                        .contains("BULK_RETRY"),
                "the bulk retry's audit entry is shown");
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
        assertNoScriptRan();
        screenshot("read-only-row");

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
