-- The circuit breaker survives restarts: a tripped breaker stays tripped until a person resets it.
create table circuit_breaker (
    id              integer       primary key,
    tripped         boolean       not null,
    tripped_at      timestamp with time zone,
    reason          varchar,
    reset_by        varchar(256),
    reset_at        timestamp with time zone
);
insert into circuit_breaker (id, tripped) values (1, false);

-- Restart-pod remembers the uid of the pod it meant to delete, so a resumed action never deletes its replacement.
alter table actions add column subject_uid varchar(64);
create index actions_created on actions (created_at);
