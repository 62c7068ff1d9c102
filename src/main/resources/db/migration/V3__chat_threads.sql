-- Chat: one message per incident and channel, Slack events seen, approval links used.
-- Portable between H2 2.x and PostgreSQL.

-- The message that stands for an incident in a chat channel: Slack's channel id and ts, so later
-- notices update it in place; the last event told, so a repeated notice does not post again.
create table chat_threads (
    incident_id     varchar(40)   not null,
    channel         varchar(16)   not null,
    conversation    varchar(200),
    message_ref     varchar(100),
    last_event      varchar(40),
    updated_at      timestamp with time zone not null,
    primary key (incident_id, channel)
);

-- Slack re-delivers an event until it gets a 2xx within 3 s; the first delivery wins.
create table chat_events_seen (
    event_id        varchar(100)  primary key,
    seen_at         timestamp with time zone not null
);
create index chat_events_seen_at on chat_events_seen (seen_at);

-- A signed approval link works once: its nonce lands here when it is used.
create table approval_links_used (
    nonce           varchar(64)   primary key,
    action_id       varchar(40)   not null,
    used_by         varchar(256)  not null,
    used_at         timestamp with time zone not null
);
