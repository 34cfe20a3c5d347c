/** The CONTAINERS and IMAGES cells of printers.go's layoutContainerCells. */

/** Container names and images of a pod spec, each joined by commas. */
export function containerCells(podSpec: any): [names: string, images: string] {
  const containers: any[] = podSpec?.containers ?? [];
  return [containers.map((c) => c.name ?? '').join(','), containers.map((c) => c.image ?? '').join(',')];
}
