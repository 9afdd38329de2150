// Writes land.bin and lakes.bin: the land polygons of Natural Earth 1:10m (npm world-atlas
// 2.0.2, land-10m.json, decoded from TopoJSON with topojson-client) and the lake polygons of
// npm @geo-maps/earth-lakes-10km 0.6.0 (OpenStreetMap data, ODbL), as little-endian binary:
//   u32 polygon count; per polygon: u32 ring count; per ring: u32 point count, then
//   f32 longitude, f32 latitude per point. The first ring is the outer one, the others holes.
// Coordinates are rounded to f32 (about a metre), far finer than either source.
//
// Usage: npm install world-atlas@2.0.2 @geo-maps/earth-lakes-10km@0.6.0 topojson-client@3.1.0 &&
//        node data/geo/extract_water.js data/geo
const fs = require("fs");
const path = require("path");
const topojson = require("topojson-client");

function polygons(geometry) {
  if (geometry.type === "Polygon") return [geometry.coordinates];
  if (geometry.type === "MultiPolygon") return geometry.coordinates;
  if (geometry.type === "GeometryCollection") return geometry.geometries.flatMap(polygons);
  return [];
}

function write(file, polys) {
  let size = 4;
  for (const p of polys) { size += 4; for (const r of p) size += 4 + r.length * 8; }
  const buf = Buffer.alloc(size);
  let o = 0;
  buf.writeUInt32LE(polys.length, o); o += 4;
  for (const p of polys) {
    buf.writeUInt32LE(p.length, o); o += 4;
    for (const r of p) {
      buf.writeUInt32LE(r.length, o); o += 4;
      for (const [lng, lat] of r) { buf.writeFloatLE(lng, o); buf.writeFloatLE(lat, o + 4); o += 8; }
    }
  }
  fs.writeFileSync(file, buf);
  return size;
}

const out = process.argv[2] || ".";
const topo = require("world-atlas/land-10m.json");
const land = topojson.feature(topo, topo.objects.land);
const landPolys = (land.type === "FeatureCollection" ? land.features : [land]).flatMap((f) => polygons(f.geometry));
const lakes = require("@geo-maps/earth-lakes-10km/map.geo.json");
const lakePolys = (lakes.type === "FeatureCollection" ? lakes.features.map((f) => f.geometry) : [lakes.geometry || lakes])
  .flatMap(polygons);
console.error("land", landPolys.length, write(path.join(out, "land.bin"), landPolys), "bytes");
console.error("lakes", lakePolys.length, write(path.join(out, "lakes.bin"), lakePolys), "bytes");
