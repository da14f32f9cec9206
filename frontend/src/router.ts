import { createRouter, createWebHashHistory, type RouteRecordRaw } from 'vue-router'

// Hash history: the API serves one index.html at "/" and needs no fallback route for the SPA.
export const routes: RouteRecordRaw[] = [
  { path: '/', name: 'projects', component: () => import('./views/ProjectsView.vue') },
  { path: '/admin', name: 'admin', component: () => import('./views/AdminView.vue') },
  {
    path: '/p/:pid',
    component: () => import('./views/ProjectShell.vue'),
    props: (r) => ({ pid: Number(r.params.pid) }),
    children: [
      { path: '', redirect: (to) => `/p/${to.params.pid}/instances` },
      { path: 'data', name: 'data', component: () => import('./views/DataView.vue') },
      { path: 'instances', name: 'instances', component: () => import('./views/InstanceView.vue') },
      { path: 'task', name: 'task', component: () => import('./views/TaskView.vue') },
      { path: 'feedback', name: 'feedback', component: () => import('./views/FeedbackView.vue') },
      { path: 'retrain', name: 'retrain', component: () => import('./views/RetrainView.vue') },
      { path: 'results', name: 'results', component: () => import('./views/ResultsView.vue') },
      { path: 'whatif', name: 'whatif', component: () => import('./views/WhatIfView.vue') },
      { path: 'deploy', name: 'deploy', component: () => import('./views/DeployView.vue') },
      { path: 'team', name: 'team', component: () => import('./views/TeamView.vue') },
      { path: 'conflicts', name: 'conflicts', component: () => import('./views/ConflictsView.vue') },
    ],
  },
  { path: '/:rest(.*)*', redirect: '/' },
]

export function makeRouter() {
  return createRouter({ history: createWebHashHistory(), routes })
}
