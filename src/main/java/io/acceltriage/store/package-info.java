/**
 * The database (embedded H2 or PostgreSQL by URL), its Flyway migrations, JSON mapping and readiness. Imports no stage.
 */
package io.acceltriage.store;
