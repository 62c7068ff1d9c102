-- Correlation keys: an alert joins the open incident that holds any key it carries
-- (node:…, pod:…, workload:…, the subject key, fleet:…).
create table incident_keys (
    incident_id     varchar(40)   not null,
    correlation_key varchar(600)  not null,
    primary key (incident_id, correlation_key)
);
create index incident_keys_key on incident_keys (correlation_key);

-- Incidents opened before correlation keys existed are found by their subject, as they were then.
insert into incident_keys (incident_id, correlation_key) select id, subject_key from incidents;
