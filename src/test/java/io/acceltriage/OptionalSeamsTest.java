package io.acceltriage;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.policy.Breaker;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.inject.Inject;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every optional seam (an {@code Instance<X>} injection) the service declares has something behind it
 * in the running CDI container, and the one that had nothing — the circuit breaker the fleet page,
 * chat and /metrics ask for — shows the stored breaker and resets it as the signed-in person. Runs in
 * the default test profile: no Quarkus boot of its own.
 */
@QuarkusTest
@ExtendWith(TestAuth.Approver.class)
class OptionalSeamsTest {

    private static final String REASON = "OptionalSeamsTest: three cordons within a minute";

    @Inject
    Breaker breaker;

    @Inject
    AuditReader audit;

    @Test
    void everyInstanceSeamOfTheServiceIsSatisfiedInTheRunningContainer() {
        // The seams, found where CDI finds them: constructor, field and producer parameters of our beans.
        Map<String, Type> seams = new TreeMap<>();
        for (Bean<?> bean : Arc.container().beanManager().getBeans(Object.class, Any.Literal.INSTANCE)) {
            Class<?> c = bean.getBeanClass();
            if (!c.getName().startsWith("io.acceltriage.")) continue;
            Stream.concat(Stream.of(c.getDeclaredConstructors()), Stream.of(c.getDeclaredMethods()))
                    .flatMap(e -> Stream.of(((Executable) e).getGenericParameterTypes()))
                    .forEach(t -> seam(t).ifPresent(x -> seams.put(c.getSimpleName() + " → " + x.getTypeName(), x)));
            for (Field f : c.getDeclaredFields()) {
                seam(f.getGenericType()).ifPresent(x -> seams.put(c.getSimpleName() + "." + f.getName() + " → " + x.getTypeName(), x));
            }
        }
        assertTrue(seams.keySet().stream().anyMatch(s -> s.startsWith("FleetPage") && s.endsWith("CircuitBreakerControl")),
                "the scan finds the fleet page's breaker seam: " + seams.keySet());
        List<String> unsatisfied = seams.entrySet().stream()
                .filter(e -> Arc.container().beanManager().createInstance().select((Class<?>) e.getValue()).isUnsatisfied())
                .map(Map.Entry::getKey).toList();
        assertEquals(List.of(), unsatisfied, "Instance<> seams with nothing behind them, of " + seams.keySet());
    }

    private static java.util.Optional<Type> seam(Type t) {
        if (t instanceof ParameterizedType p && p.getRawType() == Instance.class && p.getActualTypeArguments()[0] instanceof Class<?>) {
            return java.util.Optional.of(p.getActualTypeArguments()[0]);
        }
        return java.util.Optional.empty();
    }

    @Test
    void aTrippedBreakerShowsOnTheFleetPageAndInMetricsAndTheResetIsAuditedAsTheSignedInApprover() {
        breaker.trip(REASON);
        try {
            assertEquals(1.0, trippedGauge());
            given().get("/fleet").then().statusCode(200).body(not(containsString("not built into this version")))
                    .body(containsString("<b>tripped</b>")).body(containsString("Reset the breaker"));

            given().redirects().follow(false).post("/fleet/breaker/reset").then().statusCode(303);

            assertTrue(breaker.tripped().isEmpty(), "the stored breaker is reset");
            List<AuditRecord> resets = audit.find(new AuditQuery(null, AuditKind.BREAKER_RESET, null, null, null, null, null, 10_000))
                    .stream().filter(r -> r.payload().path("trippedFor").asText().equals(REASON)).toList();
            assertEquals(1, resets.size(), resets.toString());
            assertEquals("test-approver", resets.get(0).actor());
            assertEquals(0.0, trippedGauge());
            given().get("/fleet").then().statusCode(200).body(containsString("closed"));
        } finally {
            breaker.reset("OptionalSeamsTest"); // whatever failed, other tests find the breaker closed
        }
    }

    private static double trippedGauge() {
        String text = given().get("/metrics").then().statusCode(200).extract().asString();
        Matcher m = Pattern.compile("(?m)^acceltriage_circuit_breaker_tripped (\\S+)$").matcher(text);
        assertTrue(m.find(), text);
        return Double.parseDouble(m.group(1));
    }
}
