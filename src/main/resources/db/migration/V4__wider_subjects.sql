-- A workload subject is its label and name (leaderworkerset/<a 253-character name>), and its key adds
-- the namespace: wider than one Kubernetes name. An alert the webhook accepted must always fit, or it
-- would sit in the inbox failing to be filed.
alter table incidents alter column subject_name set data type varchar(600);
alter table incidents alter column subject_key set data type varchar(900);
alter table incident_keys alter column correlation_key set data type varchar(900);
