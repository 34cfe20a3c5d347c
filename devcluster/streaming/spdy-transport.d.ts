/** The one part of spdy-transport the devcluster uses: SPDY/3's header-compression dictionary. */
declare module 'spdy-transport' {
  const spdyTransport: {
    protocol: {
      spdy: {
        /** zlib preset dictionaries of the name/value header blocks, by SPDY version. */
        dictionary: Record<2 | 3 | 3.1, Buffer>;
      };
    };
  };
  export = spdyTransport;
}
