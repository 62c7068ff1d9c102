/**
 * Stage 2, incident: alerts, subjects and incidents; correlation (which alerts are one incident, storms), filing from the durable inbox, and the tables alerts and incidents.
 */
package io.acceltriage.incident;
