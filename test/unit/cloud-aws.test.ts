/**
 * Parsing a node's providerID and a PV's volume handle into EC2/EBS ids (src/cloud/aws.ts), pure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INSTANCE_EBS_LIMITS, parseProviderId, parseVolumeHandle } from '../../src/cloud/aws';
import { mbToMiB } from '../../src/cloud/metrics';

test('parseProviderId: aws:///<zone>/<instance-id>', () => {
  assert.deepEqual(parseProviderId('aws:///us-east-1a/i-0abc1234def567890'), {
    zone: 'us-east-1a',
    instanceId: 'i-0abc1234def567890',
  });
  assert.deepEqual(parseProviderId('aws:///ap-northeast-2c/i-913b391264c4e4730'), {
    zone: 'ap-northeast-2c',
    instanceId: 'i-913b391264c4e4730',
  });
  for (const bad of [
    '',
    'aws://us-east-1a/i-0abc1234',
    'gce://proj/zone/node',
    'aws:///us-east-1a/vol-0abc1234',
    'aws:///us-east-1a/i-xyz',
  ]) {
    assert.throws(() => parseProviderId(bad), /providerID .* is not aws:\/\/\/<zone>\/i-<hex>/, bad);
  }
});

test('parseVolumeHandle: CSI vol-… and in-tree aws://<zone>/vol-…', () => {
  assert.deepEqual(parseVolumeHandle('vol-0123456789abcdef0'), { volumeId: 'vol-0123456789abcdef0' });
  assert.deepEqual(parseVolumeHandle('aws://us-east-1a/vol-0123456789abcdef0'), {
    volumeId: 'vol-0123456789abcdef0',
    zone: 'us-east-1a',
  });
  assert.deepEqual(parseVolumeHandle('aws:///vol-0123456789abcdef0'), { volumeId: 'vol-0123456789abcdef0' });
  for (const bad of ['', 'pvc-1234', 'vol-XYZ', 'aws://us-east-1a/i-0123456789abcdef0']) {
    assert.throws(() => parseVolumeHandle(bad), /is not an EBS volume id/, bad);
  }
});

test("instance EBS limits: the article's m5.xlarge is 143.75 MB/s (137.1 MiB/s) and 6,000 IOPS at baseline", () => {
  const m = INSTANCE_EBS_LIMITS['m5.xlarge'];
  assert.deepEqual(m, { baselineMBs: 143.75, baselineIops: 6000, maximumMBs: 593.75, maximumIops: 18750 });
  assert.equal(mbToMiB(143.75).toFixed(2), '137.09');
  // gp3's 125 MiB/s binds before the instance's baseline.
  assert.ok(mbToMiB(m.baselineMBs) > 125);
});
