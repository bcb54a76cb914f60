/** The part of autocannon's programmatic API the bench uses (the package ships no types). */
declare module 'autocannon' {
  interface RequestData {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    requests?: { setupRequest?: (request: RequestData) => RequestData }[];
  }

  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }

  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
