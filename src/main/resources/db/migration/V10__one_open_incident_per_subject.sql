-- One open incident per subject, guaranteed by the database (issue 14), not only by the filing lock:
-- open_subject is the subject's key while the incident is open and null once it is resolved, and unique
-- (H2 and PostgreSQL both let a unique index hold many nulls). Portable between H2 2.x and PostgreSQL.
alter table incidents add column open_subject varchar(900);
-- Where an earlier version left two open incidents of one subject, the newest keeps the subject.
update incidents set open_subject = subject_key where state <> 'RESOLVED' and not exists (
    select 1 from incidents j where j.subject_key = incidents.subject_key and j.state <> 'RESOLVED'
    and (j.opened_at > incidents.opened_at or (j.opened_at = incidents.opened_at and j.id > incidents.id)));
create unique index incidents_open_subject on incidents (open_subject);
