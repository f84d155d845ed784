/* Where two PCI devices meet in the machine's PCIe tree, read from sysfs
 * (/sys/bus/pci/devices/<address> links to the device's place below its
 * root complex). */
#ifndef ACLCUDA_UTIL_PCI_H
#define ACLCUDA_UTIL_PCI_H

typedef enum pci_meeting {
    PCI_MEET_UNKNOWN,     /* no sysfs, or a device not found in it */
    PCI_MEET_SWITCH,      /* below a common bridge under the root complex */
    PCI_MEET_HOST_BRIDGE, /* at the root complex, or at two of one NUMA node */
    PCI_MEET_SYSTEM,      /* at root complexes of different NUMA nodes */
} pci_meeting;

/* a and b: addresses "dddd:bb:dd.f". */
pci_meeting pci_meeting_point(const char *a, const char *b);

#endif
