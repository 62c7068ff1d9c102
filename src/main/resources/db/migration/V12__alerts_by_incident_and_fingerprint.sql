-- AlertInbox.allResolved: the last alert of each fingerprint of an incident, found by the index, not by reading them all.
create index alerts_incident_fingerprint on alerts (incident_id, fingerprint, id);
