// The CRI streaming requests as the mock's gRPC layer decodes them (cri/api.proto).
export interface ExecRequestMsg { container_id: string; cmd: string[]; tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean }
export interface AttachRequestMsg { container_id: string; stdin: boolean; tty: boolean; stdout: boolean; stderr: boolean }
export interface PortForwardRequestMsg { pod_sandbox_id: string; port: number[] }
