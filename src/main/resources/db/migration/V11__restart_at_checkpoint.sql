-- A gang restart proposed for a degraded (not failed) device waits for the gang's next checkpoint (issue 20):
-- the row says so, so whichever replica leads, and a restart of the service, keeps it waiting.
alter table actions add column at_checkpoint boolean default false not null;
