/* Intrusive doubly-linked lists with a sentinel head. A node that is in no
 * list points at itself, so removing it twice is harmless. */
#ifndef ACLCUDA_UTIL_LIST_H
#define ACLCUDA_UTIL_LIST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct list_node {
    struct list_node *prev, *next;
} list_node;

#define LIST_INIT(name) {&(name), &(name)}
#define list_entry(node, type, member) ((type *)((char *)(node) - offsetof(type, member)))
#define list_for_each(pos, head) for (list_node *pos = (head)->next; pos != (head); pos = pos->next)

static inline void list_init(list_node *n)
{
    n->prev = n->next = n;
}

static inline bool list_empty(const list_node *head)
{
    return head->next == head;
}

static inline void list_add(list_node *head, list_node *n)
{
    n->next = head->next;
    n->prev = head;
    head->next->prev = n;
    head->next = n;
}

static inline void list_remove(list_node *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    list_init(n);
}

#endif
