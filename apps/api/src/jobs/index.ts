// Jobs the server runs beside its requests: their schedule, and the lease that lets one process
// at a time run a job that must not run twice at once.
export { createJobLease, type JobLease, type JobLeaseOptions, runUnderLease } from './job-lease';
export { createPeriodicJob, type PeriodicJob, type PeriodicJobOptions } from './periodic-job';
