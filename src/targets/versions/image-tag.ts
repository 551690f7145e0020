/**
 * The `image-tag` version source: the `kubernetes` target's images. A label listed in `images`
 * gets that image; any other label gets the tag `clickhouse/clickhouse-server:<label>` (whether the
 * tag exists is found when the pod pulls it: `ImagePull`). The version is read back from the pod.
 */
import { imageFor } from '../kubernetes/render';
import type { VersionResolution, VersionSource } from './source';

/** The source of one `images` map (absent: every label a default tag). */
export function imageTagSource(images: Readonly<Record<string, string>> | undefined): VersionSource {
  return {
    name: 'image-tag',
    labels: () => [...Object.keys(images ?? {}), 'any other label as clickhouse/clickhouse-server:<label>'],
    canServe: () => true,
    resolve(label): VersionResolution {
      const image = imageFor({ images: images ? { ...images } : undefined }, label);
      const listed = images !== undefined && Object.prototype.hasOwnProperty.call(images, label);
      return {
        label,
        source: 'image-tag',
        artifact: image,
        description: `image ${image} (${listed ? 'target.images' : 'default tag'}; pulled by the pod, version read back from it)`,
      };
    },
    offer: () =>
      `target.images serves ${[...Object.keys(images ?? {}), 'clickhouse/clickhouse-server:<label>'].join(', ')}`,
  };
}
