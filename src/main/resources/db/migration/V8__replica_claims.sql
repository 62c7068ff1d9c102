-- Work shared by several replicas on one database (issue 14).
-- Named locks held for one transaction (select ... for update): filing takes 'filing', so two replicas
-- never correlate the same alert, nor open two incidents for one subject, at the same moment.
create table work_locks (
    name            varchar(64)   primary key
);
insert into work_locks (name) values ('filing');

-- Triage wanted and done, by count of firing alerts filed: a replica triages an incident while it holds
-- the lease (triage_until in the future, renewed while it works); a dead replica's lease runs out and
-- another replica takes the triage over.
alter table incidents add column triage_wanted bigint default 0 not null;
alter table incidents add column triage_done bigint default 0 not null;
alter table incidents add column triage_owner varchar(128);
alter table incidents add column triage_until timestamp with time zone;
create index incidents_triage_due on incidents (triage_done, triage_wanted);
-- An incident left triaging by the version before (a crash mid-triage) is due once more.
update incidents set triage_wanted = 1 where state = 'TRIAGING';

-- The storm window reads the inbox itself: distinct subjects (hashed, so any subject fits) per alertname
-- within the window, the same answer on every replica and after a restart.
alter table alerts add column subject_hash varchar(64);
create index alerts_storm on alerts (alertname, received_at);

-- An undo a person sent to a replica without the actions lease: stored, and carried out by the leader.
create table undo_requests (
    action_id       varchar(40)   primary key,
    requested_by    varchar(256)  not null,
    requested_at    timestamp with time zone not null,
    done_at         timestamp with time zone
);
