// runtime.v1 ImageService of the mock CRI runtime: the gRPC handlers over the image store (images.ts).
// As real runtimes: ImageStatus of an absent (or unparsable) reference is an empty response, not an
// error; RemoveImage of an absent image succeeds; PullImage answers the image id as image_ref.
// StreamImages (KEP-5825 list streaming) answers UNIMPLEMENTED, as containerd does; use ListImages.
import * as grpc from '@grpc/grpc-js';
import { CriError } from './state.js';
import { imageInfo, imageMessage, type ImageStore } from './images.js';
import { LIST_STREAMING_WHY, streamNotImplemented, unary, type ServiceDeps } from './runtime-service.js';
import type { ImageSpec } from '../../cri/proto.js';

export function imageServiceHandlers(deps: Pick<ServiceDeps, 'faults' | 'calls'> & { images: ImageStore }): grpc.UntypedServiceImplementation {
  const store = deps.images;
  const u = <Req, Res>(rpc: string, fn: (req: Req, signal: AbortSignal) => Promise<Res> | Res) => unary<Req, Res>(deps, 'ImageService', rpc, fn);
  return {
    ListImages: u('ListImages', (req: { filter: { image: ImageSpec | null } | null }) => {
      const ref = req.filter?.image?.image;
      if (ref) {
        const img = store.resolve(ref);
        return { images: img ? [imageMessage(img)] : [] };
      }
      return { images: store.list().map(imageMessage) };
    }),

    StreamImages: streamNotImplemented(deps, 'ImageService', 'StreamImages', LIST_STREAMING_WHY),

    ImageStatus: u('ImageStatus', (req: { image: ImageSpec | null; verbose: boolean }) => {
      const img = req.image?.image ? store.resolve(req.image.image) : undefined;
      if (!img) return { image: null, info: {} };
      return { image: imageMessage(img), info: req.verbose ? imageInfo(img) : {} };
    }),

    PullImage: u('PullImage', async (req: { image: ImageSpec | null }, signal) => {
      const ref = req.image?.image ?? '';
      if (ref === '') throw new CriError(grpc.status.INVALID_ARGUMENT, 'failed to parse image reference "": invalid reference format');
      const img = await store.pull(ref, signal);
      return { image_ref: img.id };
    }),

    RemoveImage: u('RemoveImage', (req: { image: ImageSpec | null }) => {
      if (req.image?.image) store.remove(req.image.image);
      return {};
    }),

    ImageFsInfo: u('ImageFsInfo', () => ({ image_filesystems: [store.fsUsage()], container_filesystems: [] })),
  };
}
