package io.acceltriage;

import io.restassured.RestAssured;
import io.restassured.builder.RequestSpecBuilder;
import io.restassured.config.HeaderConfig;
import io.restassured.specification.RequestSpecification;

/**
 * The test profile's tokens (application.properties, %test.acceltriage.access.tokens). Tests that
 * call the API or the pages sign in as admin by default: {@code @BeforeEach void signIn() { TestAuth.asAdmin(); }}.
 */
public final class TestAuth {

    /** {@code @ExtendWith(TestAuth.Admin.class)}: every test of the class signs in as admin, and out after. */
    public static final class Admin implements org.junit.jupiter.api.extension.BeforeEachCallback,
            org.junit.jupiter.api.extension.AfterEachCallback {
        @Override
        public void beforeEach(org.junit.jupiter.api.extension.ExtensionContext context) {
            asAdmin();
        }

        @Override
        public void afterEach(org.junit.jupiter.api.extension.ExtensionContext context) {
            signOut();
        }
    }

    /** {@code @ExtendWith(TestAuth.Approver.class)}: as {@link Admin}, signed in as the test policy's approver. */
    public static final class Approver implements org.junit.jupiter.api.extension.BeforeEachCallback,
            org.junit.jupiter.api.extension.AfterEachCallback {
        @Override
        public void beforeEach(org.junit.jupiter.api.extension.ExtensionContext context) {
            asApprover();
        }

        @Override
        public void afterEach(org.junit.jupiter.api.extension.ExtensionContext context) {
            signOut();
        }
    }

    public static final String VIEWER = "viewer-token-0123456789";
    public static final String APPROVER = "approver-token-0123456789";
    public static final String ADMIN = "admin-token-0123456789";

    private TestAuth() {}

    /** Every REST Assured request of the calling test sends the admin token unless it sets its own. */
    public static void asAdmin() {
        // A test's own Authorization header replaces the default instead of being sent beside it.
        RestAssured.config = RestAssured.config().headerConfig(HeaderConfig.headerConfig().overwriteHeadersWithName("Authorization"));
        RestAssured.requestSpecification = bearer(ADMIN);
    }

    /** As {@link #asAdmin()}, signed in as the test policy's approver ("test-approver"). */
    public static void asApprover() {
        RestAssured.config = RestAssured.config().headerConfig(HeaderConfig.headerConfig().overwriteHeadersWithName("Authorization"));
        RestAssured.requestSpecification = bearer(APPROVER);
    }

    /** Back to sending nothing, for the tests that follow (REST Assured's defaults are global). */
    public static void signOut() {
        RestAssured.requestSpecification = null;
    }

    public static RequestSpecification bearer(String token) {
        return new RequestSpecBuilder().addHeader("Authorization", "Bearer " + token).build();
    }
}
