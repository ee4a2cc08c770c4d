// Chains and networks the API servers know. The native protocol's networks are the four the
// description shows; the universal endpoint serves those plus a second chain.

export interface NativeNetwork {
  name: string;
  chainId: number;
}

export const NATIVE_PROTOCOL = 'chain-a';

export const NATIVE_NETWORKS: readonly NativeNetwork[] = [
  { name: 'mainnet', chainId: 1 },
  { name: 'ropsten', chainId: 3 },
  { name: 'holesky', chainId: 17000 },
  { name: 'sepolia', chainId: 11155111 },
];

export const UNIVERSAL_NETWORKS: readonly { protocol: string; network: string }[] = [
  ...NATIVE_NETWORKS.map((n) => ({ protocol: NATIVE_PROTOCOL, network: n.name })),
  { protocol: 'chain-b', network: 'mainnet' },
  { protocol: 'chain-b', network: 'testnet' },
];

/** The subset the generated target file lists (a universal/native pair per network for UNI-02). */
export const ADVERTISED_UNIVERSAL: readonly { protocol: string; network: string }[] = [
  { protocol: NATIVE_PROTOCOL, network: 'mainnet' },
  { protocol: NATIVE_PROTOCOL, network: 'sepolia' },
  { protocol: 'chain-b', network: 'mainnet' },
];

/** The key the chain head is kept under: one head per network, shared by universal and native. */
export const chainKey = (protocol: string, network: string): string => `${protocol}/${network}`;

export function nativeNetwork(protocol: string, network: string): NativeNetwork | undefined {
  return protocol === NATIVE_PROTOCOL ? NATIVE_NETWORKS.find((n) => n.name === network) : undefined;
}

export function isUniversalNetwork(protocol: string, network: string): boolean {
  return UNIVERSAL_NETWORKS.some((u) => u.protocol === protocol && u.network === network);
}
