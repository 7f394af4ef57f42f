import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMetrics, jobMetricsRecorder } from './observability.ts';

test('the worker recorder counts jobs by queue and outcome and observes their run time', async () => {
  const metrics = createMetrics();
  const record = jobMetricsRecorder(metrics);
  record('webhooks.fanout', 'succeeded', 20);
  record('webhooks.fanout', 'succeeded', 40);
  record('webhooks.fanout', 'retry', 5);
  record('emails.send', 'succeeded', 1_500);
  const counts = await metrics.registry.getSingleMetricAsString('paysail_jobs_total');
  assert.match(counts, /paysail_jobs_total\{queue="webhooks\.fanout",outcome="succeeded"\} 2/);
  assert.match(counts, /paysail_jobs_total\{queue="webhooks\.fanout",outcome="retry"\} 1/);
  assert.match(counts, /paysail_jobs_total\{queue="emails\.send",outcome="succeeded"\} 1/);
  const durations = await metrics.registry.getSingleMetricAsString('paysail_job_duration_seconds');
  assert.match(durations, /paysail_job_duration_seconds_count\{queue="webhooks\.fanout"\} 3/);
  assert.match(durations, /paysail_job_duration_seconds_sum\{queue="webhooks\.fanout"\} 0\.065/);
  assert.match(durations, /paysail_job_duration_seconds_sum\{queue="emails\.send"\} 1\.5/);
});
