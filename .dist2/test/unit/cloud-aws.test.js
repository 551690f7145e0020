"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Parsing a node's providerID and a PV's volume handle into EC2/EBS ids (src/cloud/aws.ts), pure.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const aws_1 = require("../../src/cloud/aws");
const metrics_1 = require("../../src/cloud/metrics");
(0, node_test_1.test)('parseProviderId: aws:///<zone>/<instance-id>', () => {
    strict_1.default.deepEqual((0, aws_1.parseProviderId)('aws:///us-east-1a/i-0abc1234def567890'), {
        zone: 'us-east-1a',
        instanceId: 'i-0abc1234def567890',
    });
    strict_1.default.deepEqual((0, aws_1.parseProviderId)('aws:///ap-northeast-2c/i-913b391264c4e4730'), {
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
        strict_1.default.throws(() => (0, aws_1.parseProviderId)(bad), /providerID .* is not aws:\/\/\/<zone>\/i-<hex>/, bad);
    }
});
(0, node_test_1.test)('parseVolumeHandle: CSI vol-… and in-tree aws://<zone>/vol-…', () => {
    strict_1.default.deepEqual((0, aws_1.parseVolumeHandle)('vol-0123456789abcdef0'), { volumeId: 'vol-0123456789abcdef0' });
    strict_1.default.deepEqual((0, aws_1.parseVolumeHandle)('aws://us-east-1a/vol-0123456789abcdef0'), {
        volumeId: 'vol-0123456789abcdef0',
        zone: 'us-east-1a',
    });
    strict_1.default.deepEqual((0, aws_1.parseVolumeHandle)('aws:///vol-0123456789abcdef0'), { volumeId: 'vol-0123456789abcdef0' });
    for (const bad of ['', 'pvc-1234', 'vol-XYZ', 'aws://us-east-1a/i-0123456789abcdef0']) {
        strict_1.default.throws(() => (0, aws_1.parseVolumeHandle)(bad), /is not an EBS volume id/, bad);
    }
});
(0, node_test_1.test)("instance EBS limits: the article's m5.xlarge is 143.75 MB/s (137.1 MiB/s) and 6,000 IOPS at baseline", () => {
    const m = aws_1.INSTANCE_EBS_LIMITS['m5.xlarge'];
    strict_1.default.deepEqual(m, { baselineMBs: 143.75, baselineIops: 6000, maximumMBs: 593.75, maximumIops: 18750 });
    strict_1.default.equal((0, metrics_1.mbToMiB)(143.75).toFixed(2), '137.09');
    // gp3's 125 MiB/s binds before the instance's baseline.
    strict_1.default.ok((0, metrics_1.mbToMiB)(m.baselineMBs) > 125);
});
//# sourceMappingURL=cloud-aws.test.js.map